"""Content-Encoding decoders that never inflate more than a chunk at a time.

httpx inflates each network chunk whole, and a few kilobytes of brotli can
expand to gigabytes. Decoding in bounded steps lets the body cap stop a
compression bomb before it is in memory.
"""

import zlib
from collections.abc import Iterator

import brotli

from reports.analysis.errors import AnalysisError

# Offered in Accept-Encoding; anything else in a response is refused.
SUPPORTED_ENCODINGS = ("gzip", "deflate", "br")
OUTPUT_CHUNK = 64 * 1024


class BoundedDecoder:
    """Feed raw body chunks in, get decoded pieces of at most OUTPUT_CHUNK bytes out."""

    def __init__(self, content_encoding: str, host: str) -> None:
        encodings = [part.strip().lower() for part in content_encoding.split(",") if part.strip()]
        encodings = [encoding for encoding in encodings if encoding != "identity"]
        if len(encodings) > 1 or (encodings and encodings[0] not in SUPPORTED_ENCODINGS):
            raise AnalysisError(f"The answer from {host} uses an unsupported compression ({content_encoding}).")
        self.encoding = encodings[0] if encodings else None
        self.host = host
        self.brotli = brotli.Decompressor() if self.encoding == "br" else None
        # For "deflate" the decompressor is made once the first bytes show which kind it is.
        self.zlib: zlib._Decompress | None = (
            zlib.decompressobj(16 + zlib.MAX_WBITS) if self.encoding == "gzip" else None
        )

    def decode(self, data: bytes) -> Iterator[bytes]:
        try:
            if self.encoding is None:
                yield data
            elif self.brotli is not None:
                yield self.brotli.process(data, output_buffer_limit=OUTPUT_CHUNK)
                while not self.brotli.can_accept_more_data():
                    yield self.brotli.process(b"", output_buffer_limit=OUTPUT_CHUNK)
            else:
                yield from self._inflate(data)
        except (zlib.error, brotli.error) as exc:
            raise AnalysisError(f"The answer from {self.host} is compressed incorrectly ({exc}).") from None

    def _inflate(self, data: bytes) -> Iterator[bytes]:
        if self.zlib is None:
            # "deflate" is meant to be zlib-wrapped, but some servers send raw deflate.
            wrapped = data[:1] and data[0] & 0x0F == 8
            self.zlib = zlib.decompressobj(zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS)
        yield self.zlib.decompress(data, OUTPUT_CHUNK)
        while self.zlib.unconsumed_tail:
            yield self.zlib.decompress(self.zlib.unconsumed_tail, OUTPUT_CHUNK)
