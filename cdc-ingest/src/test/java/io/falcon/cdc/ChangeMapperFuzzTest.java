package io.falcon.cdc;

import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.events.DeadLetter;
import io.falcon.events.Topics;
import io.falcon.events.cdc.ClusterChange;
import io.falcon.events.cdc.JobChange;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

/**
 * Binlog changes of the jobs and clusters tables as anyone with write access may produce them (issue 20): random and
 * adversarial column values of every type, missing and NULL columns, unknown ops and tables, broken positions. Each
 * change becomes an event that the topic's serde writes and reads back unchanged, or a dead letter whose reason
 * says what is wrong; the mapper never throws, so no change can stop the binlog reader.
 */
class ChangeMapperFuzzTest {
    @Property(tries = 1000)
    void everyChangeIsPublishedIntactOrDeadLetteredWithAReason(@ForAll("changes") RawChange change) {
        MappingDecision decision = ChangeMapper.map(change);
        if (decision instanceof MappingDecision.PublishJob job) {
            Statistics.label("outcome").collect("job event");
            assertThat(job.key()).isNotBlank();
            JobChange read = Topics.CDC_JOBS
                    .valueSerde()
                    .fromBytes(Topics.CDC_JOBS.valueSerde().toBytes(job.change()));
            assertThat(read).isEqualTo(job.change());
        } else if (decision instanceof MappingDecision.PublishCluster cluster) {
            Statistics.label("outcome").collect("cluster event");
            assertThat(cluster.key()).isNotBlank();
            ClusterChange read = Topics.CDC_CLUSTERS
                    .valueSerde()
                    .fromBytes(Topics.CDC_CLUSTERS.valueSerde().toBytes(cluster.change()));
            assertThat(read).isEqualTo(cluster.change());
        } else if (decision instanceof MappingDecision.Unmappable dead) {
            Statistics.label("outcome").collect("dead letter");
            assertThat(dead.key()).isNotNull();
            assertThat(dead.letter().reason()).startsWith("cdc-ingest cannot map change of ");
            // the dead letter itself must be publishable
            DeadLetter read = Topics.DEAD_LETTER
                    .valueSerde()
                    .fromBytes(Topics.DEAD_LETTER.valueSerde().toBytes(dead.letter()));
            assertThat(read.reason()).isEqualTo(dead.letter().reason());
        } else {
            Statistics.label("outcome").collect("skipped");
            assertThat(((MappingDecision.Skip) decision).reason()).isNotBlank();
        }
    }

    // ---- generators ----

    private static Arbitrary<String> text() {
        return Arbitraries.oneOf(
                Arbitraries.of(
                        "",
                        " ",
                        "NaN",
                        "null",
                        "-1",
                        "1e309",
                        "'; DROP TABLE jobs; --",
                        "\u0000",
                        "日本語",
                        "🚀",
                        "2025-13-45T99:99:99Z",
                        "2025-03-01T10:15:30",
                        "x".repeat(5000)),
                Arbitraries.strings().all().ofMaxLength(40));
    }

    /** A column value of any type the adapter might hand over, or one it should never. */
    private static Arbitrary<Object> anyValue() {
        return Arbitraries.oneOf(
                text().map(v -> (Object) v),
                Arbitraries.longs().map(v -> (Object) v),
                Arbitraries.integers().map(v -> (Object) v),
                Arbitraries.of(
                        (Object) Long.MAX_VALUE,
                        Long.MIN_VALUE,
                        new BigInteger("123456789012345678901234567890"),
                        new BigDecimal("1.5"),
                        new BigDecimal("1E+400"),
                        Double.NaN,
                        Double.POSITIVE_INFINITY,
                        1.25f,
                        true,
                        new byte[] {0, 1, (byte) 0xff},
                        Instant.EPOCH,
                        Instant.MAX,
                        List.of("a", 1),
                        Map.of("k", "v")),
                Arbitraries.just(null));
    }

    /** A row of the table: each column kept, NULLed, removed or replaced by anything; sometimes extra columns. */
    private static Arbitrary<Map<String, Object>> rows(Map<String, Object> base) {
        List<String> columns = List.copyOf(base.keySet());
        Arbitrary<Integer> whatToDo =
                Arbitraries.frequency(Tuple.of(12, 0), Tuple.of(1, 1), Tuple.of(1, 2), Tuple.of(2, 3));
        return Combinators.combine(
                        whatToDo.list().ofSize(columns.size()),
                        anyValue().list().ofSize(columns.size()),
                        Arbitraries.maps(text(), anyValue()).ofMaxSize(2))
                .as((actions, values, extra) -> {
                    Map<String, Object> row = new LinkedHashMap<>();
                    for (int i = 0; i < columns.size(); i++) {
                        String column = columns.get(i);
                        switch (actions.get(i)) {
                            case 0 -> row.put(column, base.get(column));
                            case 1 -> row.put(column, null);
                            case 2 -> {
                                // removed
                            }
                            default -> row.put(column, values.get(i));
                        }
                    }
                    extra.forEach(row::putIfAbsent);
                    return row;
                });
    }

    @Provide
    Arbitrary<RawChange> changes() {
        Arbitrary<String> tables = Arbitraries.frequency(
                Tuple.of(5, ChangeMapper.JOBS),
                Tuple.of(4, ChangeMapper.CLUSTERS),
                Tuple.of(1, "other"),
                Tuple.of(1, null));
        Arbitrary<String> ops = Arbitraries.frequency(
                Tuple.of(3, "c"),
                Tuple.of(3, "u"),
                Tuple.of(1, "d"),
                Tuple.of(1, "r"),
                Tuple.of(1, "t"),
                Tuple.of(1, "x"),
                Tuple.of(1, null));
        Arbitrary<RawChange.Source> sources = Combinators.combine(
                        Arbitraries.of("mysql-bin.000003", "", null),
                        Arbitraries.longs(),
                        Arbitraries.longs(),
                        Arbitraries.longs(),
                        Arbitraries.of(true, false))
                .as(RawChange.Source::new);
        return Combinators.combine(
                        tables,
                        ops,
                        Arbitraries.of("1", "2"),
                        sources,
                        Arbitraries.longs(),
                        Arbitraries.of("falcon", "", null))
                .flatAs((table, op, id, source, envelope, database) -> {
                    Map<String, Object> base = ChangeMapper.CLUSTERS.equals(table) ? Rows.cluster(id) : Rows.job(id);
                    Arbitrary<Optional<Map<String, Object>>> row = Arbitraries.oneOf(
                            rows(base).map(Optional::of), Arbitraries.just(Optional.<Map<String, Object>>empty()));
                    return Combinators.combine(row, row)
                            .as((before, after) -> new RawChange(database, table, op, before, after, source, envelope));
                });
    }
}
