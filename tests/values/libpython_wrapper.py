# A slot wrapper called from Python: MyList.__init__ calls list.__init__
# through a method-wrapper (wrapper_call), where the debugger stops, once
# stopped in id first (wrapper_call runs while starting up too).
class MyList(list):
    def __init__(self):
        super(*[]).__init__()


id(42)
MyList()
