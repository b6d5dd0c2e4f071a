# SPDX-License-Identifier: MIT
"""Helpers for bench/run: measuring, peers, and one module per section."""
