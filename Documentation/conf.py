# SPDX-License-Identifier: GPL-2.0
# Sphinx configuration of xrdma's Documentation/ (make htmldocs).
project = 'xrdma'
copyright = 'the xrdma authors'
exclude_patterns = ['output']
html_theme = 'alabaster'
