package io.falcon.console.view;

import java.time.LocalDateTime;
import java.util.Optional;

/**
 * Where a keyset page starts: after the row with this (created_at, id). In a URL it is one parameter,
 * {@code 2026-12-02T10:00:03.120~job-42}; a value that does not parse is the first page.
 */
public record Cursor(LocalDateTime createdAt, String id) {
    private static final char SEPARATOR = '~';

    public static Cursor after(ListedJob job) {
        return new Cursor(job.createdAt(), job.id());
    }

    public String text() {
        return createdAt + String.valueOf(SEPARATOR) + id;
    }

    public static Optional<Cursor> parse(String text) {
        if (text == null) {
            return Optional.empty();
        }
        int split = text.indexOf(SEPARATOR);
        if (split <= 0 || split == text.length() - 1) {
            return Optional.empty();
        }
        try {
            return Optional.of(new Cursor(LocalDateTime.parse(text.substring(0, split)), text.substring(split + 1)));
        } catch (java.time.format.DateTimeParseException e) {
            return Optional.empty();
        }
    }
}
