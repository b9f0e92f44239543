package io.falcon.events.fault;

import io.falcon.events.IsoInstant;
import io.falcon.events.Meta;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The first tier of {@link FaultJson}: fault and verdict JSON read and written straight over UTF-8 bytes, for the
 * plain common case only. The subset: strings of printable ASCII (0x20-0x7E) without a backslash, the record's
 * own fields each at most once (any order, JSON whitespace between tokens), {@code receiveTimeMs} a plain integer
 * within a long. Everything else (escapes, other bytes, unknown or repeated fields, fractions, trailing content)
 * is left to the Jackson tiers, so that what this class reads and writes is by construction what the mapper would
 * (FaultJsonPropertyTest checks it). One instance per thread holds the reused buffers. The strings read are new
 * instances: a per-thread cache handing out the same instance for the same bytes (hash code kept) was measured and
 * dropped (docs/performance.md, fault-streams: it saved allocation but cost time).
 */
final class FaultBytes {
    /**
     * Longer payloads go to Jackson: a fault is a few hundred bytes, and the limit keeps Jackson's own read limits
     * (string and document lengths) the only ones that can apply.
     */
    private static final int MAX_READ = 16 * 1024;
    /** The write buffer is kept for the next record only up to this size (one huge verdict must not pin it). */
    private static final int MAX_KEPT_BUFFER = 64 * 1024;

    private static final ThreadLocal<FaultBytes> PER_THREAD = ThreadLocal.withInitial(FaultBytes::new);

    /** Thrown when the input leaves the subset: preallocated, no stack trace, so that falling back stays cheap. */
    private static final class OutsideSubset extends RuntimeException {
        private static final long serialVersionUID = 1L;

        OutsideSubset() {
            super("outside the fast subset", null, false, false);
        }
    }

    private static final OutsideSubset OUTSIDE = new OutsideSubset();

    /** The bytes (and chars) a string of the subset is made of: printable ASCII but the quote and the backslash. */
    private static final boolean[] PLAIN = new boolean[256];

    static {
        for (int c = 0x20; c <= 0x7E; c++) {
            PLAIN[c] = c != '"' && c != '\\';
        }
    }

    // The fields of a DeviceFault, by their index in FAULT_FIELDS (and their bit in the set of fields seen).
    private static final int META = 0;
    private static final int CLUSTER_ID = 1;
    private static final int NODE_NAME = 2;
    private static final int DEVICE_NAME = 3;
    private static final int FAULT_CODE = 4;
    private static final int FAULT_LEVEL = 5;
    private static final int JOB_ID = 6;
    private static final int RECEIVE_TIME_MS = 7;
    private static final byte[][] FAULT_FIELDS =
            ascii("meta", "clusterId", "nodeName", "deviceName", "faultCode", "faultLevel", "jobId", "receiveTimeMs");
    private static final int REQUIRED =
            1 << CLUSTER_ID | 1 << NODE_NAME | 1 << DEVICE_NAME | 1 << FAULT_CODE | 1 << RECEIVE_TIME_MS;

    private static final int EVENT_ID = 0;
    private static final int OCCURRED_AT = 1;
    private static final int PRODUCER = 2;
    private static final byte[][] META_FIELDS = ascii("eventId", "occurredAt", "producer");

    // What the writers put between values: the field names of the records in the order the mapper writes them.
    private static final byte[] META_EVENT_ID = ascii("{\"meta\":{\"eventId\":")[0];
    private static final byte[] OCCURRED_AT_NAME = ascii(",\"occurredAt\":")[0];
    private static final byte[] PRODUCER_NAME = ascii(",\"producer\":")[0];
    private static final byte[] CLUSTER_ID_NAME = ascii("},\"clusterId\":")[0];
    private static final byte[] NODE_NAME_NAME = ascii(",\"nodeName\":")[0];
    private static final byte[] DEVICE_NAME_NAME = ascii(",\"deviceName\":")[0];
    private static final byte[] FAULT_CODE_NAME = ascii(",\"faultCode\":")[0];
    private static final byte[] FAULT_LEVEL_NAME = ascii(",\"faultLevel\":")[0];
    private static final byte[] JOB_ID_NAME = ascii(",\"jobId\":")[0];
    private static final byte[] RECEIVE_TIME_MS_NAME = ascii(",\"receiveTimeMs\":")[0];
    private static final byte[] OUTCOME_NAME = ascii(",\"outcome\":")[0];
    private static final byte[] EVIDENCE_POLICY_VERSION = ascii(",\"evidence\":{\"policyVersion\":")[0];
    private static final byte[] PEER_DEVICES_NAME = ascii(",\"peerDevices\":[")[0];
    private static final byte[] PEER_DEVICE_COUNT_NAME = ascii("],\"peerDeviceCount\":")[0];
    private static final byte[] RECENT_FAULT_TIMES_NAME = ascii(",\"recentFaultTimesMs\":[")[0];
    private static final byte[] EXPLANATION_NAME = ascii("],\"explanation\":")[0];
    private static final byte[] END_EVIDENCE = ascii("}}")[0];
    private static final byte[] MIN_LONG = ascii(Long.toString(Long.MIN_VALUE))[0];
    /** "00" to "99", the two digits of n at 2n. */
    private static final byte[] DIGIT_PAIRS = new byte[200];

    static {
        for (int n = 0; n < 100; n++) {
            DIGIT_PAIRS[2 * n] = (byte) ('0' + n / 10);
            DIGIT_PAIRS[2 * n + 1] = (byte) ('0' + n % 10);
        }
    }

    private final AsciiView view = new AsciiView();
    private byte[] in = new byte[0];
    private int pos;
    private int end;

    private byte[] out = new byte[1024];
    private int size;

    private FaultBytes() {}

    /** The fault, or empty when the bytes are outside the subset. */
    static Optional<DeviceFault> readFault(byte[] bytes) {
        if (bytes.length > MAX_READ) {
            return Optional.empty();
        }
        FaultBytes reader = PER_THREAD.get();
        try {
            return Optional.of(reader.fault(bytes));
        } catch (RuntimeException e) {
            // OUTSIDE, or an index out of bounds where the input ends too early: the Jackson tiers say what is wrong
            // with it (a decoder hands back what it cannot read, it does not throw)
            return Optional.empty();
        } finally {
            reader.in = null;
        }
    }

    /** The mapper's JSON of the fault, or empty when one of its strings is outside the subset. */
    static Optional<byte[]> writeFault(DeviceFault f) {
        FaultBytes w = PER_THREAD.get();
        try {
            w.size = 0;
            w.meta(f.meta());
            w.field(CLUSTER_ID_NAME, f.clusterId());
            w.field(NODE_NAME_NAME, f.nodeName());
            w.field(DEVICE_NAME_NAME, f.deviceName());
            w.field(FAULT_CODE_NAME, f.faultCode());
            if (f.faultLevel().isPresent()) {
                w.field(FAULT_LEVEL_NAME, f.faultLevel().get());
            }
            if (f.jobId().isPresent()) {
                w.field(JOB_ID_NAME, f.jobId().get());
            }
            w.raw(RECEIVE_TIME_MS_NAME);
            w.number(f.receiveTimeMs());
            w.raw('}');
            return Optional.of(w.result());
        } catch (OutsideSubset e) {
            return Optional.empty();
        }
    }

    /** The mapper's JSON of the verdict, or empty when one of its strings is outside the subset (or null). */
    static Optional<byte[]> writeVerdict(FaultVerdict v) {
        FaultVerdict.Evidence e = v.evidence();
        if (v.meta() == null || v.outcome() == null || e == null) {
            // a verdict the record lets through half-built: the generator path decides what becomes of it
            return Optional.empty();
        }
        FaultBytes w = PER_THREAD.get();
        try {
            w.size = 0;
            w.meta(v.meta());
            w.field(CLUSTER_ID_NAME, v.clusterId());
            w.field(NODE_NAME_NAME, v.nodeName());
            w.field(DEVICE_NAME_NAME, v.deviceName());
            w.field(FAULT_CODE_NAME, v.faultCode());
            if (v.jobId().isPresent()) {
                w.field(JOB_ID_NAME, v.jobId().get());
            }
            w.raw(RECEIVE_TIME_MS_NAME);
            w.number(v.receiveTimeMs());
            w.field(OUTCOME_NAME, v.outcome().name());
            w.raw(EVIDENCE_POLICY_VERSION);
            w.number(e.policyVersion());
            w.raw(PEER_DEVICES_NAME);
            List<String> peers = e.peerDevices();
            for (int i = 0; i < peers.size(); i++) {
                if (i > 0) {
                    w.raw(',');
                }
                w.string(peers.get(i));
            }
            w.raw(PEER_DEVICE_COUNT_NAME);
            w.number(e.peerDeviceCount());
            w.raw(RECENT_FAULT_TIMES_NAME);
            List<Long> times = e.recentFaultTimesMs();
            for (int i = 0; i < times.size(); i++) {
                if (i > 0) {
                    w.raw(',');
                }
                w.number(times.get(i));
            }
            w.raw(EXPLANATION_NAME);
            w.string(e.explanation());
            w.raw(END_EVIDENCE);
            return Optional.of(w.result());
        } catch (OutsideSubset ex) {
            return Optional.empty();
        }
    }

    // ---- reading ----

    private DeviceFault fault(byte[] bytes) {
        in = bytes;
        pos = 0;
        end = bytes.length;
        Meta meta = null;
        String cluster = null;
        String node = null;
        String device = null;
        String code = null;
        Optional<String> level = Optional.empty();
        Optional<String> job = Optional.empty();
        long receiveTimeMs = 0;
        int seen = 0;
        int field = -1;
        expect('{');
        do {
            field = name(FAULT_FIELDS, field + 1);
            if ((seen & 1 << field) != 0) {
                // a repeated field: which one counts is the mapper's business
                throw OUTSIDE;
            }
            seen |= 1 << field;
            expect(':');
            skipWhitespace();
            switch (field) {
                // a null meta is a missing one, as for the mapper: the record derives it
                case META -> meta = isNull() ? null : meta();
                case CLUSTER_ID -> cluster = string();
                case NODE_NAME -> node = string();
                case DEVICE_NAME -> device = string();
                case FAULT_CODE -> code = string();
                // the mapper reads a null Optional as empty
                case FAULT_LEVEL -> level = isNull() ? Optional.empty() : Optional.of(string());
                case JOB_ID -> job = isNull() ? Optional.empty() : Optional.of(string());
                default -> receiveTimeMs = integer();
            }
        } while (nextMember());
        skipWhitespace();
        if (pos != end || (seen & REQUIRED) != REQUIRED) {
            throw OUTSIDE;
        }
        return new DeviceFault(meta, cluster, node, device, code, level, job, receiveTimeMs);
    }

    private Meta meta() {
        String eventId = null;
        Instant occurredAt = null;
        String producer = null;
        int seen = 0;
        int field = -1;
        expect('{');
        do {
            field = name(META_FIELDS, field + 1);
            if ((seen & 1 << field) != 0) {
                throw OUTSIDE;
            }
            seen |= 1 << field;
            expect(':');
            skipWhitespace();
            switch (field) {
                case EVENT_ID -> eventId = string();
                case PRODUCER -> producer = string();
                default -> occurredAt = instant();
            }
        } while (nextMember());
        if (seen != 0b111) {
            throw OUTSIDE;
        }
        return new Meta(eventId, occurredAt, producer);
    }

    /** After a member's value: true at a comma, false at the closing brace. */
    private boolean nextMember() {
        skipWhitespace();
        byte c = in[pos++];
        if (c == ',') {
            return true;
        }
        if (c != '}') {
            throw OUTSIDE;
        }
        return false;
    }

    /**
     * The index in names of the field name at pos (after whitespace). The name at index expected (the one after the
     * previous field in the order the mapper writes them) is tried first: a fault written by Falcon matches at once.
     */
    private int name(byte[][] names, int expected) {
        skipWhitespace();
        if (in[pos] != '"') {
            throw OUTSIDE;
        }
        int from = pos + 1;
        if (expected < names.length && nameAt(from, names[expected])) {
            pos = from + names[expected].length + 1;
            return expected;
        }
        for (int i = 0; i < names.length; i++) {
            if (nameAt(from, names[i])) {
                pos = from + names[i].length + 1;
                return i;
            }
        }
        // an unknown field (or a known one escaped): the mapper skips it, whatever its value holds
        throw OUTSIDE;
    }

    /** Whether the string starting at from is name (names hold no quote, so a match ends at the closing quote). */
    private boolean nameAt(int from, byte[] name) {
        int n = name.length;
        if (from + n >= end) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (in[from + i] != name[i]) {
                return false;
            }
        }
        return in[from + n] == '"';
    }

    /**
     * The index of the closing quote of the string whose first byte is at from; OUTSIDE for any byte but those of
     * PLAIN (negative bytes are the UTF-8 of non-ASCII characters).
     */
    private int stringEnd(int from) {
        int i = from;
        while (PLAIN[in[i] & 0xFF]) {
            i++;
        }
        if (in[i] != '"') {
            throw OUTSIDE;
        }
        return i;
    }

    private String string() {
        if (in[pos] != '"') {
            throw OUTSIDE;
        }
        int from = pos + 1;
        int to = stringEnd(from);
        pos = to + 1;
        return new String(in, from, to - from, StandardCharsets.ISO_8859_1);
    }

    private Instant instant() {
        if (in[pos] != '"') {
            throw OUTSIDE;
        }
        int from = pos + 1;
        int to = stringEnd(from);
        pos = to + 1;
        // the mapper parses other forms (offsets, numbers) more leniently: those are its to read
        Optional<Instant> instant = IsoInstant.parse(view.of(in, from, to));
        if (instant.isEmpty()) {
            throw OUTSIDE;
        }
        return instant.get();
    }

    private boolean isNull() {
        if (in[pos] == 'n' && in[pos + 1] == 'u' && in[pos + 2] == 'l' && in[pos + 3] == 'l') {
            pos += 4;
            return true;
        }
        return false;
    }

    /**
     * A JSON integer within a long, read as Jackson does. Left to Jackson: "-0", fractions and exponents (the mapper
     * may truncate them), anything longer than a long. Leading zeros are invalid JSON, and so outside too.
     */
    private long integer() {
        boolean negative = in[pos] == '-';
        if (negative) {
            pos++;
        }
        int from = pos;
        // accumulated negatively, so that Long.MIN_VALUE fits
        long limit = negative ? Long.MIN_VALUE : -Long.MAX_VALUE;
        long value = 0;
        while (pos < end && in[pos] >= '0' && in[pos] <= '9') {
            int digit = in[pos] - '0';
            if (value < limit / 10 || value * 10 < limit + digit) {
                throw OUTSIDE;
            }
            value = value * 10 - digit;
            pos++;
        }
        int digits = pos - from;
        if (digits == 0 || (in[from] == '0' && (digits > 1 || negative))) {
            throw OUTSIDE;
        }
        if (pos < end && (in[pos] == '.' || in[pos] == 'e' || in[pos] == 'E')) {
            throw OUTSIDE;
        }
        return negative ? value : -value;
    }

    private void expect(char c) {
        skipWhitespace();
        if (in[pos++] != c) {
            throw OUTSIDE;
        }
    }

    private void skipWhitespace() {
        while (pos < end) {
            byte c = in[pos];
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
                return;
            }
            pos++;
        }
    }

    // ---- writing ----

    private void meta(Meta meta) {
        raw(META_EVENT_ID);
        string(meta.eventId());
        raw(OCCURRED_AT_NAME);
        instant(meta.occurredAt());
        raw(PRODUCER_NAME);
        string(meta.producer());
    }

    /** The instant's digits straight into the buffer (no String in between), as the mapper writes it. */
    private void instant(Instant instant) {
        room(IsoInstant.MAX_ASCII + 2);
        int after = IsoInstant.formatAscii(instant, out, size + 1);
        if (after < 0) {
            string(IsoInstant.format(instant));
            return;
        }
        out[size] = '"';
        out[after] = '"';
        size = after + 1;
    }

    private void field(byte[] name, String value) {
        raw(name);
        string(value);
    }

    private void raw(byte[] bytes) {
        room(bytes.length);
        System.arraycopy(bytes, 0, out, size, bytes.length);
        size += bytes.length;
    }

    private void raw(char c) {
        room(1);
        out[size++] = (byte) c;
    }

    /** The string in quotes, byte for byte: only when the generator would write no escape and no multi-byte char. */
    private void string(String s) {
        if (s == null) {
            throw OUTSIDE;
        }
        int n = s.length();
        room(n + 2);
        byte[] b = out;
        int at = size;
        b[at++] = '"';
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c > 0x7E || !PLAIN[c]) {
                throw OUTSIDE;
            }
            b[at++] = (byte) c;
        }
        b[at++] = '"';
        size = at;
    }

    /**
     * Long.toString's digits, as the generator writes a long. Two digits per division, and int divisions once the
     * rest fits an int: the dozen-digit epoch milliseconds of a verdict were a third of its encoding one at a time.
     */
    private void number(long value) {
        if (value == Long.MIN_VALUE) {
            raw(MIN_LONG);
            return;
        }
        room(20);
        long v = value;
        if (v < 0) {
            out[size++] = '-';
            v = -v;
        }
        int digits = 1;
        for (long bound = 10; digits < 19 && v >= bound; bound *= 10) {
            digits++;
        }
        int start = size;
        int at = start + digits;
        size = at;
        while (v > Integer.MAX_VALUE) {
            long q = v / 100;
            int pair = (int) (v - q * 100) * 2;
            out[--at] = DIGIT_PAIRS[pair + 1];
            out[--at] = DIGIT_PAIRS[pair];
            v = q;
        }
        int i = (int) v;
        while (i >= 10) {
            int q = i / 100;
            int pair = (i - q * 100) * 2;
            out[--at] = DIGIT_PAIRS[pair + 1];
            out[--at] = DIGIT_PAIRS[pair];
            i = q;
        }
        if (at > start) {
            // an odd number of digits (or the value 0): the first one is left
            out[--at] = (byte) ('0' + i);
        }
    }

    private void room(int n) {
        if (size + n > out.length) {
            out = Arrays.copyOf(out, Math.max(out.length * 2, size + n));
        }
    }

    private byte[] result() {
        byte[] bytes = Arrays.copyOf(out, size);
        if (out.length > MAX_KEPT_BUFFER) {
            out = new byte[1024];
        }
        return bytes;
    }

    private static byte[][] ascii(String... texts) {
        byte[][] bytes = new byte[texts.length][];
        for (int i = 0; i < texts.length; i++) {
            bytes[i] = texts[i].getBytes(StandardCharsets.US_ASCII);
        }
        return bytes;
    }

    /** The ASCII bytes of a string as the characters IsoInstant parses, without copying them into a String. */
    private static final class AsciiView implements CharSequence {
        private byte[] bytes;
        private int from;
        private int length;

        AsciiView of(byte[] b, int start, int to) {
            bytes = b;
            from = start;
            length = to - start;
            return this;
        }

        @Override
        public int length() {
            return length;
        }

        @Override
        public char charAt(int index) {
            if (index < 0 || index >= length) {
                throw new IndexOutOfBoundsException(index);
            }
            return (char) bytes[from + index];
        }

        @Override
        public CharSequence subSequence(int start, int to) {
            return toString().substring(start, to);
        }

        @Override
        public String toString() {
            return new String(bytes, from, length, StandardCharsets.ISO_8859_1);
        }
    }
}
