package io.falcon.scheduler.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Intake validation: what is refused InvalidSpec before anything is created, naming the field. */
class RequestValidatorTest {

    private static JobRequest request(String id, String tpuType, String topology) {
        return new JobRequest(id, "alice", "n", tpuType, topology, SchedulerFixture.SPEC, Optional.empty(),
                Optional.empty(), Instant.parse("2026-12-02T09:00:00Z"));
    }

    @ParameterizedTest
    @CsvSource({"v6e, 2x4", "v6e, 16x16", "v5e, 4x8", "v5p, 2x2x1", "v5p, 4x4x4", "v5p, 4x8x8", "v7x, 2x2x4",
            "v7x, 8x8x16"})
    void everyGenerationsSliceShapesAreAccepted(String tpuType, String topology) {
        assertThat(RequestValidator.validate(request("j1", tpuType, topology)))
                .isInstanceOf(RequestValidator.Valid.class);
    }

    @ParameterizedTest
    @CsvSource({"v6e, 4x4x4", "v6e, 2x6", "v5e, 32x32", "v5p, 2x4", "v5p, 4x2x2", "v5p, 2x4x8", "v7x, 2x4",
            "v7x, 64x64x64"})
    void aShapeTheGenerationDoesNotHaveIsInvalidSpecListingTheValidOnes(String tpuType, String topology) {
        RequestValidator.Result result = RequestValidator.validate(request("j1", tpuType, topology));
        assertThat(result).isInstanceOfSatisfying(RequestValidator.Invalid.class, invalid -> {
            assertThat(invalid.field()).isEqualTo("topology");
            assertThat(invalid.message()).contains("'" + topology + "' is not a " + tpuType + " slice shape; valid: ");
        });
        if (tpuType.equals("v6e")) {
            assertThat(((RequestValidator.Invalid) result).message()).endsWith("2x2, 2x4, 4x4, 4x8, 8x8, 8x16, 16x16");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"has space", "a/b", "..", "../etc", ".hidden", "x..y", "é"})
    void aJobIdThatCannotNameItsLogPathIsInvalidSpec(String id) {
        assertThat(RequestValidator.validate(request(id, "v6e", "2x4")))
                .isInstanceOfSatisfying(RequestValidator.Invalid.class, invalid -> {
                    assertThat(invalid.field()).isEqualTo("id");
                    assertThat(invalid.message()).contains("gs://<bucket>/logs/<id>/");
                });
    }

    @ParameterizedTest
    @ValueSource(strings = {"j1", "job-42", "6a0f3c1e-0000-4000-8000-00000000000a", "run_7.2"})
    void ordinaryJobIdsAreAccepted(String id) {
        assertThat(RequestValidator.validate(request(id, "v6e", "2x4"))).isInstanceOf(RequestValidator.Valid.class);
    }
}
