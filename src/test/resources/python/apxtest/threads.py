"""Python threads calling back into Java."""
import threading


def call_from_thread(function, value):
    box = []
    thread = threading.Thread(target=lambda: box.append(function(value)))
    thread.start()
    thread.join()
    return box[0]


def call_many(function, count):
    total = 0
    for i in range(count):
        total += function(i)
    return total
