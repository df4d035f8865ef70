"""Class mode: start a class (the projector: the code in large type, the join link, a QR code, the live counts and
the class's answers) or join one by its code (ui/classmode.py)."""

from ui import classmode
from ui.shell import page_context

classmode.class_page(page_context())
