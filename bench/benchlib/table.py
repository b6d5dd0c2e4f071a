# SPDX-License-Identifier: MIT
"""Markdown output."""


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines


def section(title, intro, body):
    lines = [f"## {title}", ""]
    if intro:
        lines += [intro, ""]
    return lines + body + [""]
