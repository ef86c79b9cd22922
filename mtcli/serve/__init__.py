"""`mtcli serve`: an HTTP API that LibreTranslate clients speak, on mtcli's own model.

config: every default and limit; batcher: sentences of concurrent requests decoded together, joining
and leaving the decoders' batches at every step; texts: text/HTML in, sentences to decode, translations out; app: the Starlette
routes; server: model loading, socket and uvicorn. Only `config` is imported by the CLI at start-up:
the web stack loads when the command runs.
"""
