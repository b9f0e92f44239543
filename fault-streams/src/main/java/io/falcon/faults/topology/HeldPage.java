package io.falcon.faults.topology;

import io.falcon.events.fault.DeviceFault;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.kafka.common.errors.SerializationException;

/**
 * Up to {@link #SIZE} held faults, in arrival order, stored as one value of the job window's store (a page),
 * instead of one value and one tombstone per fault: with the store cached, the changelog gets one record per page
 * written within a commit interval rather than two per fault. A page keeps its faults' binary encodings, so it is
 * rewritten (only the faults still held) by copying bytes; it is deleted once none is held. A changed page is
 * encoded once per commit ({@link CommitTimeStore}), so its size trades the changelog records (one per page changed
 * within a commit interval) against the bytes written per record: 16 faults, about 1.6 KB.
 */
final class HeldPage {
    static final int SIZE = 16;
    static final byte PAGE_V1 = 3;
    private static final String PREFIX = StoreKeys.SEP + "page" + StoreKeys.SEP;

    private final String key;
    /** The encodings by slot; null once the slot's fault is decided. */
    private final List<byte[]> slots = new ArrayList<>(SIZE);

    private int held;
    /** What the store is to hold for this page at the commit (one supplier per page, not one per fault). */
    private final Supplier<Optional<byte[]>> stored = () -> held > 0 ? Optional.of(encode()) : Optional.empty();

    HeldPage(String key) {
        this.key = key;
    }

    /** The store key of the page with that number: ordered by number, never a key of the earlier layout. */
    static String key(long number) {
        return PREFIX + StoreKeys.time(number);
    }

    /** The number of a page key, or -1 for a key of the earlier layout (one fault per key). */
    static long number(String key) {
        return key.startsWith(PREFIX) ? Long.parseLong(key.substring(PREFIX.length())) : -1;
    }

    String key() {
        return key;
    }

    /** The page's store value as it will be when asked (at the commit): its encoding, or none once it holds nothing. */
    Supplier<Optional<byte[]>> stored() {
        return stored;
    }

    boolean full() {
        return slots.size() >= SIZE;
    }

    int held() {
        return held;
    }

    /** Holds one more fault; returns its slot. */
    int add(byte[] encoded) {
        slots.add(encoded);
        held++;
        return slots.size() - 1;
    }

    /** The fault in the slot was decided. */
    void release(int slot) {
        if (slots.set(slot, null) != null) {
            held--;
        }
    }

    /** The store value: the faults still held. */
    byte[] encode() {
        int size = 1 + 4;
        for (byte[] s : slots) {
            size += s == null ? 0 : 4 + s.length;
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        out.put(PAGE_V1);
        out.putInt(held);
        for (byte[] s : slots) {
            if (s != null) {
                out.putInt(s.length);
                out.put(s);
            }
        }
        return out.array();
    }

    /**
     * The faults of a store value: a page, or one fault (binary or JSON) as the earlier layout stored each held
     * fault, which restores as a page of one.
     */
    static List<DeviceFault> decode(byte[] value) {
        if (value.length == 0 || value[0] != PAGE_V1) {
            return List.of(BinaryCodec.decodeFault(value));
        }
        try {
            ByteBuffer in = ByteBuffer.wrap(value, 1, value.length - 1);
            int count = in.getInt();
            List<DeviceFault> faults = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                byte[] fault = new byte[in.getInt()];
                in.get(fault);
                faults.add(BinaryCodec.decodeFault(fault));
            }
            return faults;
        } catch (RuntimeException e) {
            throw new SerializationException("undecodable page of held faults: " + e.getMessage(), e);
        }
    }
}
