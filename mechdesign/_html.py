"""How values show themselves: short exact ``__repr__`` texts and the small HTML tables and
figures of notebooks (``_repr_html_``).

Every class's ``__repr__`` and ``_repr_html_`` is a few lines calling these helpers. The rules:

* a repr is one line of at most :data:`MAX_REPR` characters (labels and long lists are cut
  with ``...``);
* a number in a repr is its ``repr`` (the shortest text that reads back to the same float),
  or is marked ``~`` when rounded (:func:`approx`); an HTML matrix shows 4 significant
  digits, with the exact value as the cell's tooltip;
* every label is escaped (labels are user input);
* a matrix past :data:`MAX_SHOWN` rows or columns is cut (``...`` marks the omitted
  rows and columns) and the caption states the full size;
* a figure is drawn by :mod:`mechdesign.plotting` when asked for (:func:`figure_html`):
  matplotlib loads then, and without it the HTML falls back to a table.

numpy and the standard library only.
"""

from __future__ import annotations

import base64
import html
import io
import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

MAX_REPR = 200
"""Longest repr, in characters."""

MAX_SHOWN = 12
"""Rows and columns of a matrix shown in full in HTML; a larger matrix shows the first
``MAX_SHOWN - 2``, ``...`` and the last."""

LABEL_CHARS = 24
"""Longest text of one label in a repr or a table cell (longer ones are cut with ``...``)."""

LIST_CHARS = 60
"""Longest text of a list of labels or numbers in a repr."""

FIGURE_DPI = 80
"""Resolution of the PNG figures embedded in HTML."""

_SHADE = (31, 119, 180)
"""The heatmap's colour (matplotlib's first colour), its opacity growing with the value."""


# ============================================================================ text


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, ending with ``...`` when cut."""
    return text if len(text) <= limit else text[:max(limit - 3, 0)] + "..."


def number(x: Any) -> str:
    """A number as exactly as Python writes it (``repr`` of the float or int); ``None``
    and other values as ``repr``."""
    if isinstance(x, bool) or x is None:
        return repr(x)
    if isinstance(x, int | np.integer):
        return repr(int(x))
    if isinstance(x, float | np.floating):
        return repr(float(x))
    return repr(x)


def approx(x: float, digits: int = 3) -> str:
    """A rounded number, marked as such: ``~0.00523`` (0, inf and nan, exact, unmarked)."""
    x = float(x)
    if x == 0 or not np.isfinite(x):
        return repr(x)
    return f"~{x:.{digits}g}"


def items_text(items: Sequence, fmt: Callable[[Any], str] = repr,
               limit: int = LIST_CHARS) -> str:
    """``[a, b, c]`` with every item written by ``fmt`` (each cut to :data:`LABEL_CHARS`),
    or, when that is longer than ``limit``, the first items, ``...`` and the last one."""
    parts: list[str] = []
    total = 2  # the brackets
    for item in items:  # stops once the whole list is known not to fit
        parts.append(clip(fmt(item), LABEL_CHARS))
        total += len(parts[-1]) + (2 if len(parts) > 1 else 0)
        if total > limit:
            break
    if total <= limit or len(items) == 1:
        return "[" + ", ".join(parts) + "]"
    last = clip(fmt(items[-1]), LABEL_CHARS)
    head: list[str] = []
    used = len(last) + 9  # "[", ", ..., " and "]"
    for p in parts:
        if head and used + len(p) + 2 > limit:
            break
        head.append(p)
        used += len(p) + 2
    return "[" + ", ".join(head) + ", ..., " + last + "]"


def numbers_text(values: Any, limit: int = LIST_CHARS) -> str:
    """:func:`items_text` of numbers written by :func:`number`."""
    return items_text(np.asarray(values).ravel(), number, limit)


def set_text(members: Iterable, order: Sequence, fmt: Callable[[Any], str] = repr) -> str:
    """A focal set as ``{a, b}``, its members in the order of ``order``."""
    members = set(members)
    return "{" + ", ".join(fmt(y) for y in order if y in members) + "}"


def is_default_labels(labels: Sequence, n: int) -> bool:
    """Whether ``labels`` are the default ``0..n-1``."""
    return tuple(labels) == tuple(range(n))


def short_repr(kind: str, body: str) -> str:
    """``<kind body>`` cut to :data:`MAX_REPR` characters."""
    return clip(f"<{kind} {body}", MAX_REPR - 1) + ">"


def matrix_repr(kind: str, matrix: np.ndarray,
                labels: Sequence[tuple[str, Sequence | None, Callable[[Any], str]]],
                name: str = "", hint: str = ".matrix") -> str:
    """The repr of a mechanism-like value.

    When it fits in :data:`MAX_REPR` characters, the exact constructor call
    ``kind([[...]], label=[...], ...)`` (every float its repr, every label its repr);
    otherwise ``<kind 'name' kxm, label=[...], ...; values: hint>`` with the labels cut to
    fit. ``labels`` are ``(keyword, labels, text of a label)`` triples; a ``None``
    label sequence is left out."""
    k, m = matrix.shape
    shown = [(key, seq, fmt) for key, seq, fmt in labels if seq is not None]
    if matrix.size <= 64:
        args = [repr(matrix.tolist())]
        args += [f"{key}=[{', '.join(fmt(x) for x in seq)}]" for key, seq, fmt in shown]
        if name:
            args.append(f"name={name!r}")
        full = f"{kind}({', '.join(args)})"
        if len(full) <= MAX_REPR:
            return full
    head = f"{clip(repr(name), 40)} {k}x{m}" if name else f"{k}x{m}"
    body = ", ".join([head] + [f"{key}={items_text(seq, fmt, 48)}" for key, seq, fmt in shown])
    return short_repr(kind, f"{body}; values: {hint}")


# ============================================================================ HTML


def escape(value: Any) -> str:
    """``str(value)`` cut to :data:`LABEL_CHARS` * 4 characters and HTML-escaped."""
    return html.escape(clip(str(value), LABEL_CHARS * 4))


def wrap(*parts: str) -> str:
    """The HTML parts in one ``<div>``."""
    return '<div class="mechdesign">' + "".join(parts) + "</div>"


def paragraph(text: str, code: bool = False) -> str:
    """``text`` escaped in a ``<p>`` (in ``<code>`` with ``code``)."""
    body = html.escape(text)
    return f"<p><code>{body}</code></p>" if code else f"<p>{body}</p>"


def kv_table(rows: Iterable[tuple[str, Any]], caption: str = "") -> str:
    """A two-column table of ``(name, value)`` rows, both escaped; a list value is a
    bulleted list, a ``None`` value leaves its row out."""
    out = ['<table style="border-collapse:collapse;">']
    if caption:
        out.append(f'<caption style="text-align:left;font-weight:bold;">'
                   f"{html.escape(caption)}</caption>")
    out.append("<tbody>")
    for key, value in rows:
        if value is None:
            continue
        if isinstance(value, list | tuple):
            cell = ("<ul style=\"margin:0;padding-left:1.2em;\">"
                    + "".join(f"<li>{html.escape(str(v))}</li>" for v in value) + "</ul>"
                    if value else "none")
        else:
            cell = html.escape(str(value))
        out.append(f'<tr><th style="text-align:left;padding-right:1em;">{html.escape(key)}'
                   f'</th><td style="text-align:left;">{cell}</td></tr>')
    out.append("</tbody></table>")
    return "".join(out)


def shown_indices(n: int, limit: int = MAX_SHOWN) -> list[int | None]:
    """The indices shown of ``n`` rows (or columns): all when ``n <= limit``, else the
    first ``limit - 2``, ``None`` (the ``...``) and the last."""
    if n <= limit:
        return list(range(n))
    return [*range(limit - 2), None, n - 1]


def _cell(v: float, vmax: float) -> str:
    alpha = 0.75 * v / vmax if vmax > 0 and math.isfinite(v) else 0.0
    color = "color:#fff;" if alpha > 0.45 else ""
    r, g, b = _SHADE
    return (f'<td style="background-color:rgba({r},{g},{b},{alpha:.3f});{color}'
            f'text-align:right;" title="{html.escape(repr(float(v)))}">{v:.4g}</td>')


def matrix_table(matrix: np.ndarray, row_labels: Sequence, column_labels: Sequence,
                 caption: str, rows_name: str = "inputs",
                 columns_name: str = "outputs") -> str:
    """A matrix as an HTML table: labelled rows and columns, entries to 4 significant
    digits (the exact value in the cell's tooltip) on a background shaded by value (an
    inline heatmap), cut past :data:`MAX_SHOWN` rows or columns with ``...``; the caption
    states the full size (and what is shown)."""
    k, m = matrix.shape
    rows, cols = shown_indices(k), shown_indices(m)
    size = f"{k} {rows_name} x {m} {columns_name}"
    if len(rows) < k or len(cols) < m:
        size += (f" (showing {sum(i is not None for i in rows)} x "
                 f"{sum(j is not None for j in cols)}; ... marks the rest)")
    vmax = float(matrix.max()) if matrix.size else 0.0
    out = ['<table style="border-collapse:collapse;font-variant-numeric:tabular-nums;">',
           f'<caption style="text-align:left;">{html.escape(caption)}: '
           f"{html.escape(size)}</caption>",
           "<thead><tr><th></th>"]
    out += ["<th>...</th>" if j is None else f"<th>{escape(column_labels[j])}</th>"
            for j in cols]
    out.append("</tr></thead><tbody>")
    for i in rows:
        if i is None:
            out.append("<tr><th>...</th>" + "<td>...</td>" * len(cols) + "</tr>")
            continue
        out.append(f'<tr><th style="text-align:left;">{escape(row_labels[i])}</th>')
        out += ["<td>...</td>" if j is None else _cell(float(matrix[i, j]), vmax)
                for j in cols]
        out.append("</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def figure_html(draw: Callable[[], Any], fallback: Callable[[], str], alt: str) -> str:
    """A figure as an embedded PNG: ``draw()`` returns a matplotlib ``Figure`` (it imports
    :mod:`mechdesign.plotting`, hence matplotlib, only now); when matplotlib is not
    installed (``ImportError``), ``fallback()``'s HTML instead."""
    try:
        fig = draw()
    except ImportError:
        return fallback()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=FIGURE_DPI)
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return f'<img src="data:image/png;base64,{data}" alt="{html.escape(alt)}">'


def _text(value: Any) -> str:
    return value if isinstance(value, str) else number(value)


def series_table(columns: Sequence[tuple[str, Any]], caption: str,
                 limit: int = MAX_SHOWN) -> str:
    """Parallel columns (``(name, values)``) as a table, each number its repr,
    cut past ``limit`` rows with ``...`` (the caption states how many)."""
    n = len(columns[0][1])
    rows = shown_indices(n, limit)
    out = ['<table style="border-collapse:collapse;">',
           f'<caption style="text-align:left;">{html.escape(caption)} ({n} rows)</caption>',
           "<thead><tr>" + "".join(f"<th>{html.escape(c)}</th>" for c, _ in columns)
           + "</tr></thead><tbody>"]
    for i in rows:
        cells = ("<td>...</td>" if i is None else
                 f'<td style="text-align:right;">{html.escape(_text(vals[i]))}</td>'
                 for _, vals in columns)
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table>")
    return "".join(out)


SMALL_ARRAY = 8
"""Arrays of at most this many entries are written out in a :func:`fields_repr`."""


def fields_repr(obj: Any) -> str:
    """``Name(field=value, ...)`` of a dataclass, short: an array of more than
    :data:`SMALL_ARRAY` entries as its shape (``loss=<30x30 array>``), a small one and every
    number exactly, other values by ``repr`` cut to :data:`LABEL_CHARS`; the whole cut to
    :data:`MAX_REPR` characters. For values whose default repr would print a matrix."""
    import dataclasses

    parts = []
    for f in dataclasses.fields(obj):
        if not f.repr:
            continue
        v = getattr(obj, f.name)
        if isinstance(v, np.ndarray):
            text = (numbers_text(v) if v.size <= SMALL_ARRAY
                    else f"<{'x'.join(map(str, v.shape))} array>")
        elif isinstance(v, float | int | np.number) and not isinstance(v, bool):
            text = number(v)
        else:
            text = clip(repr(v), LABEL_CHARS)
        parts.append(f"{f.name}={text}")
    return clip(f"{type(obj).__name__}({', '.join(parts)}", MAX_REPR - 1) + ")"


def field_text(value: Any) -> str:
    """A field's value in an HTML table cell (escaped by :func:`kv_table`): a number
    exactly (its repr), an array of at most :data:`SMALL_ARRAY` entries written out, a
    larger one as its shape and its first and last values, a string cut to
    ``4 *`` :data:`LABEL_CHARS`, anything else by its (short) repr, cut likewise."""
    if isinstance(value, np.ndarray):
        if value.size <= SMALL_ARRAY:
            return numbers_text(value)
        shape = "x".join(map(str, value.shape))
        return f"{shape} array: {numbers_text(value.ravel(), LIST_CHARS)}"
    if isinstance(value, float | int | np.number) and not isinstance(value, bool):
        return number(value)
    if isinstance(value, str):
        return clip(value, LABEL_CHARS * 4)
    if isinstance(value, tuple | list) and value and all(
            isinstance(v, float | int | np.number) and not isinstance(v, bool) for v in value):
        return numbers_text(np.asarray(value))
    return clip(repr(value), LABEL_CHARS * 4)


def fields_html(obj: Any, caption: str = "") -> str:
    """A dataclass as an HTML table of its fields (those shown by its repr), each written by
    :func:`field_text`; the caption is ``caption`` or the class name."""
    import dataclasses

    rows = [(f.name, field_text(getattr(obj, f.name)))
            for f in dataclasses.fields(obj) if f.repr]
    return wrap(kv_table(rows, caption or type(obj).__name__))


def value_view(cls: type) -> type:
    """Class decorator for a result dataclass: a short one-line repr
    (:func:`fields_repr`) in place of the dataclass's own, and a ``_repr_html_`` table of
    its fields (:func:`fields_html`); a ``__repr__`` or ``_repr_html_`` written in the class
    body is kept. Put it above ``@dataclass``."""
    own_repr = vars(cls).get("__repr__")
    if own_repr is None or hasattr(own_repr, "__wrapped__"):  # the dataclass's repr
        cls.__repr__ = fields_repr  # type: ignore[assignment]
    if "_repr_html_" not in vars(cls):
        cls._repr_html_ = fields_html  # type: ignore[attr-defined]
    return cls
