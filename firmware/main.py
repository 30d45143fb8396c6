# main: starts the game (cmmain). Short, so that deploy writes it in one chunk, last: a
# copy cut off anywhere leaves no main.py, an empty one, or this whole one.
import cmmain
cmmain.loop()
