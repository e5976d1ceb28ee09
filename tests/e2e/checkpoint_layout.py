"""A scenario checkpoint's bytes as the layout at the top of runtime/src/sim/sim_snapshot.cpp
says (formats 3 on), for the e2e scripts: checkpoint_test.sh (a format 8 file made format 7)
and resume_all_test.sh (how many agents hold a path search in progress)."""
import struct
import zlib


class Reader:
    def __init__(self, data):
        assert data[:8] == b"THKTSIM\n"
        self.b, self.p = data, 24  # magic, format, body length, CRC-32
        self.format = struct.unpack_from("<I", data, 8)[0]

    def take(self, fmt):
        v = struct.unpack_from(fmt, self.b, self.p)[0]
        self.p += struct.calcsize(fmt)
        return v

    def skip_str(self):
        n = self.take("<I")
        self.p += n

    def header(self):
        """Reads the header up to the groups' brains; returns the agent count."""
        self.skip_str()
        self.skip_str()  # thicket version, scenario file
        self.take("<Q"); self.take("<Q"); self.take("<d"); self.take("<Q"); self.take("<I")  # hash, seed, dt, tick, threads
        agents = self.take("<I")
        for _ in range(self.take("<I")):  # groups: brain file, hash
            self.skip_str()
            self.take("<Q")
        return agents

    def hashes(self):
        """Format 8 on: the map's hash and the Lua files' hashes, after the groups."""
        if self.format >= 8:
            self.take("<Q")
            n = self.take("<I")
            self.p += 8 * n


def as_format_7(data):
    """A format 8 checkpoint's bytes as format 7 wrote them: without the header's hashes."""
    r = Reader(data)
    r.header()
    start = r.p
    r.hashes()
    body = data[24:start] + data[r.p:]
    return data[:8] + struct.pack("<IQI", 7, len(body), zlib.crc32(body)) + body
