# Instances and nested containers as py-print shows them: hold() has one
# of each kind of attribute storage (inline values, a dict made by reading
# __dict__, __slots__, slots of a base plus a dict, a dict past the inline
# values' room), a self-reference, a deep container and a long one, and the
# debugger stops in the id() it calls.
class Order:
    def __init__(self, oid, items):
        self.oid = oid
        self.items = items


class Slotted:
    __slots__ = ("a", "b")

    def __init__(self):
        self.a = 1
        self.b = "two"


class Sub(Slotted):
    pass


class Wide:
    pass


class Node:
    def __init__(self, name):
        self.name = name
        self.next = self


def hold(order, viadict, slotted, sub, wide, node, deep, long):
    id(42)


viadict = Order(2, [])
viadict.__dict__["extra"] = 3
sub = Sub()
sub.c = 4
wide = Wide()
for i in range(40):
    setattr(wide, "a%d" % i, i)
hold(Order(1, ["x"]), viadict, Slotted(), sub, wide, Node("n"),
     {"outer": {"inner": (1, [2, {"deep": "end"}])}}, list(range(1000)))
