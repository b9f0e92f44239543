package io.falcon.events.security;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reads a password file (a mounted k8s Secret): its text without the trailing line break editors and echo add. */
public final class SecretFiles {
    private SecretFiles() {}

    /**
     * @throws IllegalStateException naming the file (never its content) when it cannot be read or is empty
     */
    public static String read(Path file) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(
                    "cannot read the password file " + file + ": "
                            + e.getClass().getSimpleName(),
                    e);
        }
        String stripped = text.endsWith("\r\n")
                ? text.substring(0, text.length() - 2)
                : text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
        if (stripped.isEmpty()) {
            throw new IllegalStateException("the password file " + file + " is empty");
        }
        return stripped;
    }
}
