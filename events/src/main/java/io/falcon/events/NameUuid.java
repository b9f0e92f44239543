package io.falcon.events;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.UUID;

/**
 * Name-based (version 3, MD5) UUIDs: exactly {@code UUID.nameUUIDFromBytes(name in UTF-8).toString()}, with one MD5
 * digest kept per thread. {@code nameUUIDFromBytes} looks its digest up through the security providers on every
 * call (reflection and a fresh digest object), which fault-streams paid once per verdict.
 */
public final class NameUuid {
    private static final ThreadLocal<MessageDigest> MD5 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new InternalError("MD5 is required of every Java platform", e);
        }
    });

    private NameUuid() {}

    /** The version 3 UUID of the name's UTF-8 bytes, as a string. */
    public static String of(String name) {
        MessageDigest md5 = MD5.get();
        md5.reset();
        byte[] hash = md5.digest(name.getBytes(StandardCharsets.UTF_8));
        hash[6] = (byte) ((hash[6] & 0x0f) | 0x30); // version 3
        hash[8] = (byte) ((hash[8] & 0x3f) | 0x80); // IETF variant
        long most = 0;
        long least = 0;
        for (int i = 0; i < 8; i++) {
            most = (most << 8) | (hash[i] & 0xff);
            least = (least << 8) | (hash[8 + i] & 0xff);
        }
        return new UUID(most, least).toString();
    }
}
