#!/usr/bin/python3
"""Drops files on an X11 window through the XDND protocol (version 5), the way a file manager does.

    xdnd_drop.py [--title TEXT] [--timeout SECONDS] FILE...

The target is the first top-level window whose title contains TEXT (default: lwo-wmo-viewer). The files
are offered as a text/uri-list, the pointer position is the window's centre, and the drop waits for the
target's XdndFinished. Exits 0 when the target accepted the drop and finished it, 1 otherwise, with the
reason on stderr. Needs DISPLAY and python3-xlib (Debian's package of that name).
"""
import argparse
import os
import sys
import time
import urllib.parse

from Xlib import X, Xatom, display, protocol

XDND_VERSION = 5


def fail(message):
    print(f"xdnd_drop: {message}", file=sys.stderr)
    sys.exit(1)


def window_title(window, atoms):
    try:
        net_name = window.get_full_property(atoms["_NET_WM_NAME"], atoms["UTF8_STRING"])
        if net_name is not None:
            value = net_name.value
            return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
        return window.get_wm_name() or ""
    except Exception:
        return ""


def find_target(root, title, atoms):
    """The window with `title` in its name that advertises XdndAware (the named window or a child)."""
    pending = list(root.query_tree().children)
    while pending:
        window = pending.pop(0)
        if title in window_title(window, atoms):
            for candidate in [window] + list(window.query_tree().children):
                aware = candidate.get_full_property(atoms["XdndAware"], Xatom.ATOM)
                if aware is not None:
                    return candidate, min(XDND_VERSION, int(aware.value[0]))
            fail(f"the window titled {title!r} does not accept drops (no XdndAware)")
        pending.extend(window.query_tree().children)
    return None, 0


def client_message(display_, target, source, kind, values):
    data = [source.id] + list(values) + [0] * (4 - len(values))
    event = protocol.event.ClientMessage(window=target, client_type=kind, data=(32, data))
    target.send_event(event, event_mask=0)
    display_.flush()


def main():
    parser = argparse.ArgumentParser(description="Drop files on an X11 window through XDND.")
    parser.add_argument("--title", default="lwo-wmo-viewer")
    parser.add_argument("--timeout", type=float, default=10.0)
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()

    x = display.Display()
    root = x.screen().root
    names = ["XdndAware", "XdndEnter", "XdndPosition", "XdndStatus", "XdndDrop", "XdndFinished",
             "XdndLeave", "XdndSelection", "XdndActionCopy", "text/uri-list", "_NET_WM_NAME", "UTF8_STRING"]
    atoms = {name: x.intern_atom(name) for name in names}
    uri_list = "".join(
        "file://" + urllib.parse.quote(os.path.abspath(path)) + "\r\n" for path in args.files
    ).encode("utf-8")

    deadline = time.monotonic() + args.timeout
    target, version = None, 0
    while target is None and time.monotonic() < deadline:
        target, version = find_target(root, args.title, atoms)
        if target is None:
            time.sleep(0.1)
    if target is None:
        fail(f"no window titled {args.title!r}")

    # The source: an unmapped window of ours that owns the selection the target reads the files from.
    source = root.create_window(0, 0, 1, 1, 0, X.CopyFromParent, X.InputOnly, X.CopyFromParent)
    source.set_selection_owner(atoms["XdndSelection"], X.CurrentTime)
    geometry = target.get_geometry()
    origin = target.translate_coords(root, 0, 0)
    at_x, at_y = -origin.x + geometry.width // 2, -origin.y + geometry.height // 2

    client_message(x, target, source, atoms["XdndEnter"], [version << 24, atoms["text/uri-list"]])
    client_message(x, target, source, atoms["XdndPosition"],
                   [0, (at_x << 16) | at_y, X.CurrentTime, atoms["XdndActionCopy"]])

    dropped = False
    while time.monotonic() < deadline:
        if not x.pending_events():
            time.sleep(0.01)
            continue
        event = x.next_event()
        if event.type == X.ClientMessage and event.client_type == atoms["XdndStatus"] and not dropped:
            if not event.data[1][1] & 1:
                client_message(x, target, source, atoms["XdndLeave"], [])
                fail("the window refused the drop")
            client_message(x, target, source, atoms["XdndDrop"], [0, X.CurrentTime])
            dropped = True
        elif event.type == X.SelectionRequest:
            # The target asks for the files: they go in the property it names, then it is told so.
            property_ = event.property if event.property != X.NONE else event.target
            if event.target == atoms["text/uri-list"]:
                event.requestor.change_property(property_, event.target, 8, uri_list)
            else:
                property_ = X.NONE
            reply = protocol.event.SelectionNotify(time=event.time, requestor=event.requestor,
                                                   selection=event.selection, target=event.target,
                                                   property=property_)
            event.requestor.send_event(reply, event_mask=0)
            x.flush()
        elif event.type == X.ClientMessage and event.client_type == atoms["XdndFinished"]:
            return 0
    fail("timed out before the window finished the drop")


if __name__ == "__main__":
    sys.exit(main())
