"""One Panel view per part of the page. Each is a ``pn.viewable.Viewer`` over the reader's state
(``app.state.ReaderState``) that draws with the pure renderers in ``app.render`` and never computes a
model fact."""
