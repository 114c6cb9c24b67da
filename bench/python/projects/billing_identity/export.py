"""Encode an invoice's lines, then the invoice itself."""
from billing import codecs
from billing.documents import Invoice
from billing.lines import Line

# --- main ---
# --- warm-up ---
inv = Invoice("inv-9", [Line("hosting", 120.0), Line("support", 45.5)])
print(codecs.encode(inv.lines[0]))
print(codecs.encode([line for line in inv.lines]))
print(codecs.encode(inv))
