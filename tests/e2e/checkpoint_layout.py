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


    def metrics(self):
        """The metrics (names, totals, gauge flags, statistics); returns the flags' offsets."""
        flags = []
        for _ in range(self.take("<I")):
            self.skip_str()
            self.p += 8
            flags.append(self.p)
            self.p += 1 + 32 + 8
        return flags

    def book(self):
        """Agent-ticks, script errors, the script error book (format 6 on) and the warnings said (7 on)."""
        self.p += 16
        if self.format >= 6:
            for _ in range(self.take("<I")):
                self.skip_str(); self.take("<I"); self.skip_str(); self.take("<Q")
            for _ in range(self.take("<I")):
                self.skip_str(); self.take("<I"); self.take("<I")
        if self.format >= 7:
            for _ in range(self.take("<I")):
                self.skip_str(); self.take("<I"); self.skip_str()

    def effects_said(self):
        """Format 9 on: the refused effects' messages said so far."""
        if self.format >= 9:
            for _ in range(self.take("<I")):
                self.skip_str(); self.take("<I")


def as_format_7(data):
    """A format 8 or 9 checkpoint's bytes as format 7 wrote them: without the header's hashes,
    a counter's gauge flag 0, without the effects' messages said."""
    r = Reader(data)
    r.header()
    start = r.p
    r.hashes()
    hashes_end = r.p
    flags = r.metrics()
    r.book()
    said = r.p
    r.effects_said()
    b = bytearray(data)
    for at in flags:
        if b[at] == 2:
            b[at] = 0
    body = bytes(b[24:start] + b[hashes_end:said] + b[r.p:])
    return data[:8] + struct.pack("<IQI", 7, len(body), zlib.crc32(body)) + body
