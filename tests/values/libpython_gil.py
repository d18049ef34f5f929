# Four threads spinning in Python while the main thread, holding the GIL,
# is stopped in id: each of them waits for the GIL (take_gil).
from threading import Thread


class Spinner(Thread):
    def run(self):
        i = 0
        while 1:
            i += 1


spinners = [Spinner(daemon=True) for _ in range(4)]
for s in spinners:
    s.start()
id(42)
