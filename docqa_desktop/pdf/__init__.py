"""PDF files as the engines see them: open one, read its text layer in reading order, render a page (whole, a
region, a thumbnail, an image at a visual-token budget). Below indexing, retrieval and the visual index, which all
read pages this one way."""
