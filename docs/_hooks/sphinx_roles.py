"""Griffe extension for the API reference: the docstrings' Sphinx cross-reference roles
(``:class:`~chrono_flex.Result```, ``:func:`...```, ...) become links where the target is
in the reference and plain code where it is not (a private module, PyChrono).

The roles are written as in Sphinx; mkdocs-autorefs resolves the ``<autoref optional>``
elements this emits after every page is rendered, so a missing target is no warning.
"""

import re

import griffe

ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|attr|data|exc|obj):`(~?)([^`<>]+)`")


def _replace(match):
    short, target = match.group(1), match.group(2).strip()
    shown = target.rsplit(".", 1)[-1] if short else target
    return f'<autoref identifier="{target}" optional><code>{shown}</code></autoref>'


def convert(text):
    """``text`` with every Sphinx role replaced (see the module docstring)."""
    return ROLE.sub(_replace, text)


class SphinxRoles(griffe.Extension):
    """Rewrites each object's docstring once, as griffe loads it."""

    def on_instance(self, *, obj, **kwargs):
        if obj.docstring is not None and ":`" in obj.docstring.value:
            obj.docstring.value = convert(obj.docstring.value)
