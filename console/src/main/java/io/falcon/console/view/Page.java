package io.falcon.console.view;

import java.util.List;
import java.util.Optional;

/** One page of a keyset-paged list, and where the next one starts if there is more. */
public record Page<T>(List<T> items, Optional<Cursor> next) {
    public Page {
        items = List.copyOf(items);
    }

    /**
     * A page from rows read with one more than the page size: the extra row only says that there is more, and the
     * next page starts after the last row shown.
     */
    public static Page<ListedJob> of(List<ListedJob> readOneMore, int pageSize) {
        if (readOneMore.size() <= pageSize) {
            return new Page<>(readOneMore, Optional.empty());
        }
        List<ListedJob> shown = readOneMore.subList(0, pageSize);
        return new Page<>(shown, Optional.of(Cursor.after(shown.get(shown.size() - 1))));
    }
}
