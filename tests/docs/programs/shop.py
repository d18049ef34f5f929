import sys


class Order:
    def __init__(self, items):
        self.items = items


def total(order, discount=0.1):
    prices = {"apple": 0.5, "pear": 0.75}
    subtotal = sum(prices[item] for item in order.items)
    sys.stdin.readline()  # stopped here
    return subtotal * (1 - discount)


def checkout(customer, order):
    return total(order)


checkout("ada", Order(["apple", "pear"]))
