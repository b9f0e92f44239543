package io.falcon.cli;

import io.falcon.events.TpuTopology;
import io.falcon.events.TpuType;
import io.falcon.events.executor.SupplyMode;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** picocli converters whose errors name the allowed values (picocli prefixes them with the option's name). */
final class Converters {
    private static final Pattern DURATION = Pattern.compile("(\\d+)(s|m|h|d)?");

    private Converters() {}

    static List<String> tpuTypes() {
        return Arrays.stream(TpuType.values()).map(TpuType::wireName).toList();
    }

    static List<String> supplyModes() {
        return Arrays.stream(SupplyMode.values()).map(SupplyMode::wireName).toList();
    }

    /** A TPU type by its wire name (v5e, v5p, v6e, v7x). */
    static final class TpuTypeName implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            return TpuType.fromWire(value)
                    .map(TpuType::wireName)
                    .orElseThrow(() -> new TypeConversionException(
                            "'" + value + "' is not a TPU type; allowed: " + String.join(", ", tpuTypes())));
        }
    }

    /** A slice shape like 2x4 or 4x4x4 whose chip count is a multiple of 4. */
    static final class Topology implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            return TpuTopology.parse(value)
                    .map(TpuTopology::text)
                    .orElseThrow(() -> new TypeConversionException("'" + value
                            + "' is not a TPU topology; allowed: a slice shape like 2x2, 2x4, 4x4 or 4x4x4 whose"
                            + " chip count (product of the dimensions) is a multiple of 4"));
        }
    }

    static final class Supply implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            return SupplyMode.fromWire(value)
                    .map(SupplyMode::wireName)
                    .orElseThrow(() -> new TypeConversionException(
                            "'" + value + "' is not a supply mode; allowed: " + String.join(", ", supplyModes())));
        }
    }

    /** 3600, 3600s, 90m, 2h or 1d; at most 30 days (the scheduler's limit). */
    static final class TimeoutSeconds implements ITypeConverter<Long> {
        static final long MAX = 30L * 24 * 3600;

        @Override
        public Long convert(String value) {
            Matcher m = DURATION.matcher(value.trim().toLowerCase(Locale.ROOT));
            if (!m.matches()) {
                throw new TypeConversionException("'" + value + "' is not a timeout; allowed: seconds (3600) or a"
                        + " duration like 90m, 2h, 1d");
            }
            long n;
            try {
                n = Long.parseLong(m.group(1));
            } catch (NumberFormatException e) {
                throw new TypeConversionException("'" + value + "' is too large; at most " + MAX + " seconds");
            }
            String unit = m.group(2) == null ? "s" : m.group(2);
            Duration d = switch (unit) {
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                case "d" -> Duration.ofDays(n);
                default -> Duration.ofSeconds(n);
            };
            if (d.isZero() || d.getSeconds() > MAX) {
                throw new TypeConversionException("'" + value + "' is out of range; allowed: 1 second to 30 days");
            }
            return d.getSeconds();
        }
    }

    /** A duration: 30s, 90m, 2h or 7d (a plain number is seconds). */
    static final class DurationConverter implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            Matcher m = DURATION.matcher(value.trim().toLowerCase(Locale.ROOT));
            if (!m.matches()) {
                throw new TypeConversionException("'" + value + "' is not a duration; allowed: 30s, 90m, 2h, 7d");
            }
            long n;
            try {
                n = Long.parseLong(m.group(1));
            } catch (NumberFormatException e) {
                throw new TypeConversionException("'" + value + "' is too large");
            }
            String unit = m.group(2) == null ? "s" : m.group(2);
            return switch (unit) {
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                case "d" -> Duration.ofDays(n);
                default -> Duration.ofSeconds(n);
            };
        }
    }

    /** Cluster status of the clusters table. */
    static final class ClusterStatus implements ITypeConverter<String> {
        static final List<String> ALLOWED = io.falcon.events.ClusterStatus.settable().stream()
                .map(io.falcon.events.ClusterStatus::wireName)
                .toList();

        @Override
        public String convert(String value) {
            if (!ALLOWED.contains(value)) {
                throw new TypeConversionException(
                        "'" + value + "' is not a cluster status; allowed: " + String.join(", ", ALLOWED));
            }
            return value;
        }
    }

    /** Job status of the jobs table. */
    static final class JobStatus implements ITypeConverter<String> {
        static final List<String> ALLOWED = List.of("Pending", "Running", "Succeeded", "Failed", "Aborting", "Aborted");

        @Override
        public String convert(String value) {
            return ALLOWED.stream()
                    .filter(s -> s.equalsIgnoreCase(value))
                    .findFirst()
                    .orElseThrow(() -> new TypeConversionException(
                            "'" + value + "' is not a job status; allowed: " + String.join(", ", ALLOWED)));
        }
    }
}
