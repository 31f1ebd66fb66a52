"""The style sheet of the HTML report (inline: the report is one self-contained file)."""

from __future__ import annotations

STYLE = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1100px;
padding:0 16px 40px;color:#222}
h1{font-size:22px}h2{font-size:18px;margin-top:36px;border-bottom:1px solid #ccc}h3{font-size:15px}
.banner{padding:12px 16px;border-radius:6px;font-size:18px;font-weight:600;margin:16px 0}
.banner.pass{background:#e6f4ea;color:#1e6b34}.banner.fail{background:#fdecea;color:#a4231a}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ddd;padding:3px 8px;text-align:left}
th{background:#f5f5f5}td.num{text-align:right;font-variant-numeric:tabular-nums}
.fail{color:#a4231a}.pass{color:#1e6b34}.sev-error{color:#a4231a}.sev-warning{color:#8a5a00}
.sev-info{color:#1f5f99}code{font-size:12px}.muted{color:#666}
.chart .axis{stroke:#333}.chart .grid{stroke:#eee}.chart .tick{font-size:11px;fill:#444}
.chart .axis-title{font-size:12px;fill:#222}.chart .target{stroke:#d62728;stroke-width:1.5;stroke-dasharray:6 4}
.chart .target-label{font-size:11px;fill:#d62728}.chart .curve{stroke-width:1.6}
.chart .score-line{stroke:#1f77b4;stroke-width:2}
"""
