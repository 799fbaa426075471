"""The baseline for the page-load benchmark: a one-widget Panel app served the same way."""

import panel as pn

pn.extension()
pn.widgets.IntSlider(name="Tick", start=0, end=14, css_classes=["baseline-ready"]).servable()
