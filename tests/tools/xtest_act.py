#!/usr/bin/python3
"""What a user does with mouse and keyboard, sent to the X server through XTest (python3-xlib).

Each argument is one step:
  focus            give the lwo-wmo-viewer window the keyboard (no window manager does it here)
  move:X:Y         move the pointer to screen pixel X, Y
  down:B / up:B    press / release mouse button B (1 left, 3 right; 4 and 5 are the wheel)
  click:B          down and up, 50 ms apart
  keydown:K / keyup:K   press / release the key with X keysym name K (w, Shift_L, Page_Down ...)
  key:K            keydown and keyup, 100 ms apart
  type:TEXT        each character of TEXT as a key press
  sleep:S          wait S seconds
"""
import sys
import time

from Xlib import X, XK, display
from Xlib.ext import xtest

d = display.Display()
# Keysym names of the characters a path holds that are not their own name.
NAMES = {' ': 'space', '/': 'slash', '.': 'period', '-': 'minus', '_': 'underscore', ':': 'colon'}


def find(window):
    for child in window.query_tree().children:
        if 'lwo-wmo-viewer' in (child.get_wm_name() or ''):
            return child
        found = find(child)
        if found:
            return found
    return None


def keycode(name):
    code = d.keysym_to_keycode(XK.string_to_keysym(name))
    if code == 0:
        sys.exit(f'no key for keysym {name!r}')
    return code


def key(name, pressed):
    xtest.fake_input(d, X.KeyPress if pressed else X.KeyRelease, keycode(name))
    d.sync()


def button(number, pressed):
    xtest.fake_input(d, X.ButtonPress if pressed else X.ButtonRelease, number)
    d.sync()


for step in sys.argv[1:]:
    verb, _, rest = step.partition(':')
    if verb == 'focus':
        window = find(d.screen().root)
        if window is None:
            sys.exit('no lwo-wmo-viewer window')
        window.set_input_focus(X.RevertToParent, X.CurrentTime)
        d.sync()
    elif verb == 'move':
        x, y = rest.split(':')
        xtest.fake_input(d, X.MotionNotify, x=int(x), y=int(y))
        d.sync()
    elif verb in ('down', 'up'):
        button(int(rest), verb == 'down')
    elif verb == 'click':
        button(int(rest), True)
        time.sleep(0.05)
        button(int(rest), False)
    elif verb in ('keydown', 'keyup'):
        key(rest, verb == 'keydown')
    elif verb == 'key':
        key(rest, True)
        time.sleep(0.1)
        key(rest, False)
    elif verb == 'type':
        for character in rest:
            keysym = XK.string_to_keysym(NAMES.get(character, character))
            # The key that makes this character, and whether Shift is held for it (index 1 of its map).
            code, index = next(iter(d.keysym_to_keycodes(keysym)), (0, 0))
            if code == 0:
                sys.exit(f'no key types {character!r}')
            if index % 2 == 1:
                key('Shift_L', True)
            xtest.fake_input(d, X.KeyPress, code)
            xtest.fake_input(d, X.KeyRelease, code)
            d.sync()
            if index % 2 == 1:
                key('Shift_L', False)
            time.sleep(0.03)
    elif verb == 'sleep':
        time.sleep(float(rest))
    else:
        sys.exit(f'unknown step {step!r}')
