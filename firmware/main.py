# main: starts the game (cmmain). Short, so that deploy writes it in one chunk, last: a
# copy cut off anywhere leaves no main.py, an empty one, or this whole one. The two biggest
# modules compile first, into the empty heap (see cmmain).
import cmsearch, cmgame, cmmain  # noqa: E401,F401
cmmain.loop()
