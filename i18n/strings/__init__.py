"""UI strings, one module per area of the app; i18n/__init__.py merges them.

Each module defines STRINGS = {"area.key": {"zh": "...", "en": "..."}}. Keys are
prefixed by the area so that two modules never define the same key (a test checks).
"""
