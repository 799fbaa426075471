"""Pure renderers: HTML and SVG drawn from the model's trace data, one module per picture. No Panel, no
model logic. The Panel app shows them in its views; the build (``sitebuild``) writes them into the static
pages, so the worked example is on the page before any Python has loaded."""
