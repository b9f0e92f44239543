package io.falcon.ops;

import java.util.Objects;
import java.util.function.Supplier;

/**
 * One named condition of a component's health, evaluated on every probe. Implementations must be thread-safe and
 * quick: the ops server calls them from its own threads and gives each a deadline.
 */
public interface ReadinessCheck {
    /** Shown in the /readyz body, e.g. "kafka-streams" or "consumer:falcon.task-status". */
    String name();

    Result check();

    /** The outcome of one check: ok, or not ok with a reason a person can act on. */
    record Result(boolean ok, String detail) {
        public Result {
            Objects.requireNonNull(detail, "detail");
        }

        public static Result ok(String detail) {
            return new Result(true, detail);
        }

        public static Result fail(String detail) {
            return new Result(false, detail);
        }
    }

    static ReadinessCheck of(String name, Supplier<Result> check) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(check, "check");
        return new ReadinessCheck() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public Result check() {
                return check.get();
            }
        };
    }
}
