package io.falcon.events;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Which priorities each actor may give its jobs ({@code falcon.scheduler.priority-limits}): a range per actor, and one
 * for every other actor ({@code *}). Text form: {@code *=-1000..1000,batch=-10..0,oncall=0..100}.
 *
 * @param others the range of an actor not named
 * @param byActor the ranges of the actors named
 */
public record PriorityLimits(Range others, Map<String, Range> byActor) {
    /**
     * No range goes beyond these, so that the aging arithmetic (priority times the aging interval, in ms) stays far
     * inside a long, and so that a typo cannot put a job a million levels ahead.
     */
    public static final int MIN = -1000;

    public static final int MAX = 1000;

    /** The default: every actor may use the whole range. */
    public static final PriorityLimits ANY = new PriorityLimits(new Range(MIN, MAX), Map.of());

    public PriorityLimits {
        byActor = Map.copyOf(byActor);
    }

    /** A closed range of priorities. */
    public record Range(int min, int max) {
        public Range {
            if (min > max || min < MIN || max > MAX) {
                throw new IllegalArgumentException("a range must lie between " + MIN + " and " + MAX
                        + " with min <= max, got " + min + ".." + max);
            }
        }

        public boolean contains(long priority) {
            return priority >= min && priority <= max;
        }

        @Override
        public String toString() {
            return min + ".." + max;
        }
    }

    /** The range of this actor's jobs. */
    public Range of(String actor) {
        return byActor.getOrDefault(actor, others);
    }

    /** Parses the text form; IllegalArgumentException says what is wrong. */
    public static PriorityLimits parse(String text) {
        Range others = ANY.others();
        Map<String, Range> byActor = new LinkedHashMap<>();
        boolean othersGiven = false;
        for (String part : text.split(",", -1)) {
            String entry = part.strip();
            if (entry.isEmpty()) {
                continue;
            }
            int eq = entry.lastIndexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("'" + entry + "' is not ACTOR=MIN..MAX");
            }
            String actor = entry.substring(0, eq).strip();
            Range range = range(entry.substring(eq + 1).strip());
            if (actor.equals("*")) {
                if (othersGiven) {
                    throw new IllegalArgumentException("'*' is given twice");
                }
                othersGiven = true;
                others = range;
            } else if (byActor.put(actor, range) != null) {
                throw new IllegalArgumentException("actor '" + actor + "' is given twice");
            }
        }
        return new PriorityLimits(others, byActor);
    }

    private static Range range(String text) {
        int dots = text.indexOf("..");
        if (dots < 0) {
            throw new IllegalArgumentException("'" + text + "' is not MIN..MAX");
        }
        try {
            return new Range(
                    Integer.parseInt(text.substring(0, dots).strip()),
                    Integer.parseInt(text.substring(dots + 2).strip()));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is not MIN..MAX of whole numbers", e);
        }
    }

    /** The text form, {@code *} first. */
    public String format() {
        String named = byActor.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining(","));
        return "*=" + others + (named.isEmpty() ? "" : "," + named);
    }
}
