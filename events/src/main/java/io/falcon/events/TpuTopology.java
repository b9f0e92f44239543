package io.falcon.events;

import java.util.Optional;
import java.util.regex.Pattern;

/** A TPU slice topology such as 2x4 or 4x4x4: chips = product of the dimensions, hosts = chips / 4. */
public record TpuTopology(String text, int chips) {
    private static final Pattern SHAPE = Pattern.compile("[1-9][0-9]{0,2}(x[1-9][0-9]{0,2}){1,2}");

    public static Optional<TpuTopology> parse(String text) {
        if (text == null || !SHAPE.matcher(text).matches()) {
            return Optional.empty();
        }
        long chips = 1;
        for (String dimension : text.split("x")) {
            chips *= Long.parseLong(dimension);
        }
        if (chips % TpuType.CHIPS_PER_HOST != 0 || chips > 9216) {
            return Optional.empty();
        }
        return Optional.of(new TpuTopology(text, (int) chips));
    }

    public int hosts() {
        return chips / TpuType.CHIPS_PER_HOST;
    }

    public boolean multiHost() {
        return hosts() > 1;
    }
}
