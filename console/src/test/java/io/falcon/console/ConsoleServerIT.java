package io.falcon.console;

import static io.falcon.testkit.builders.TaskStatusBuilder.taskStatus;
import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.console.view.ConsoleIndex;
import io.falcon.embedded.EmbeddedMariaDb;
import io.falcon.embedded.JobsTable;
import io.falcon.embedded.SharedInfra;
import io.falcon.events.Meta;
import io.falcon.events.decision.Decision;
import io.falcon.events.fault.NodeIsolation;
import io.falcon.events.security.DatabaseTls;
import io.falcon.events.status.Reason;
import io.falcon.events.status.Status;
import io.falcon.testkit.Await;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The console's HTTP side on a real database (the index fed directly, as the topic reader would): authentication,
 * every page, escaping of hostile tenant strings, and the server-sent events a page subscribes to.
 */
class ConsoleServerIT {
    private static final String TOKEN = "a-console-token-of-more-than-32-characters";
    private static final String HOSTILE_ID = "<script>alert(1)</script>";
    private static final String HOSTILE_ACTOR = "mallory\"><img src=x onerror=alert(2)>";
    private static final String HOSTILE_MESSAGE = "done \u001b[2J\u001b]8;;http://evil\u0007x\u202Egnp.exe' \"<b>";

    private static ConsoleServer server;
    private static ConsoleIndex index;
    private static final HttpClient HTTP =
            HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();

    @BeforeAll
    static void start() throws Exception {
        EmbeddedMariaDb db = SharedInfra.mariaDb();
        String database = SharedInfra.uniqueName("consoleweb");
        db.createDatabase(database);
        try (Connection c = db.connect(database);
                Statement s = c.createStatement()) {
            JobsTable.create(c);
            s.execute(Files.readString(Path.of("../status-sink/src/main/resources/db/migration/V1__clusters.sql"))
                    .lines()
                    .filter(l -> !l.startsWith("--"))
                    .reduce("", (a, b) -> a + "\n" + b)
                    .replaceAll(";\\s*$", ""));
            s.execute("INSERT INTO clusters (id, name, project, location, tpu_type, gcs_bucket, default_reservation)"
                    + " VALUES ('c1', 'edge-a', 'p', 'us-east5', 'v6e', 'bucket-a', 'res-a')");
            try (PreparedStatement insert = c.prepareStatement(
                    "INSERT INTO jobs (id, actor, name, tpu_type, topology,"
                            + " spec, status, reason, message, cluster_id) VALUES (?, ?, 'n', 'v6e', '2x4', '{}', ?, ?, ?, 'c1')")) {
                for (List<String> row : List.of(
                        List.of(
                                HOSTILE_ID,
                                HOSTILE_ACTOR,
                                "Pending",
                                "Waiting",
                                "队列位置 #1,前面有 0 个任务 " + HOSTILE_MESSAGE),
                        List.of("waiter", "alice", "Pending", "Waiting", "队列位置 #2,前面有 1 个任务,预计 14:20-14:35 开始"))) {
                    for (int i = 0; i < row.size(); i++) {
                        insert.setString(i + 1, row.get(i));
                    }
                    insert.executeUpdate();
                }
            }
            // a 4x4 queue for the pick order: submitted early, urgent (submitted last), deep
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO jobs (id, actor, name, tpu_type, topology,"
                    + " spec, status, reason, message, cluster_id, priority, created_at)"
                    + " VALUES (?, 'bob', 'n', 'v6e', '4x4', '{}', 'Pending', 'Waiting', 'queued', 'c1', ?, ?)")) {
                int second = 0;
                for (String id : List.of("q-early", "q-deep", "q-urgent")) {
                    insert.setString(1, id);
                    insert.setInt(2, id.equals("q-urgent") ? 5 : 0);
                    insert.setTimestamp(3, java.sql.Timestamp.valueOf("2026-12-02 10:00:0" + second++));
                    insert.executeUpdate();
                }
            }
        }
        index = new ConsoleIndex(100, 16);
        server = new ConsoleServer(
                        new ConsoleDatabase(db.jdbcUrl(database), db.user(), db.password(), DatabaseTls.DRIVER_DEFAULT),
                        index,
                        new Authenticator(Authenticator.Mode.TOKEN, Optional.of(TOKEN)),
                        Clock.fixed(Instant.parse("2026-12-02T10:05:00Z"), ZoneOffset.UTC),
                        50,
                        16)
                .start("127.0.0.1", 0);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static HttpResponse<String> get(String path, Map<String, String> headers) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path));
        headers.forEach(request::header);
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> authorized(String path) throws Exception {
        return get(path, Map.of("Authorization", "Bearer " + TOKEN));
    }

    @Test
    void withoutTheTokenEveryPageAndTheEventsAre401() throws Exception {
        for (String path : List.of("/fleet", "/queues", "/jobs", "/jobs/waiter", "/events?topic=fleet", "/")) {
            assertThat(get(path, Map.of()).statusCode()).as(path).isEqualTo(401);
            assertThat(get(path, Map.of("Authorization", "Bearer wrong-" + TOKEN))
                            .statusCode())
                    .as(path)
                    .isEqualTo(401);
            // the proxy's header counts for nothing unless the console is configured to trust it
            assertThat(get(path, Map.of(Authenticator.IAP_HEADER, "accounts.google.com:eve@example.com"))
                            .statusCode())
                    .as(path)
                    .isEqualTo(401);
        }
        assertThat(get("/fleet", Map.of()).body()).doesNotContain(TOKEN);
    }

    @Test
    void aBrowserOpensThePageOnceWithTheTokenAndKeepsItInAStrictHttpOnlyCookie() throws Exception {
        HttpResponse<String> first = get("/queues?cluster=c1&token=" + TOKEN, Map.of());
        assertThat(first.statusCode()).isEqualTo(302);
        assertThat(first.headers().firstValue("Location")).contains("/queues?cluster=c1");
        String cookie = first.headers().firstValue("Set-Cookie").orElseThrow();
        assertThat(cookie).contains("HttpOnly").containsIgnoringCase("SameSite=Strict");
        HttpResponse<String> next = get("/queues?cluster=c1", Map.of("Cookie", cookie.split(";")[0]));
        assertThat(next.statusCode()).isEqualTo(200);
        assertThat(next.body()).contains("waiter");
    }

    @Test
    void theQueuePageListsTheFirstWaitingJobsInPickOrderThenTheRestInSubmissionOrder() throws Exception {
        Instant at = Instant.parse("2026-12-02T10:01:00Z");
        Map<String, String> told = Map.of(
                "q-urgent", "队列位置 #1,前面有 0 个任务",
                "q-early", "队列位置 #2,前面有 1 个任务",
                "q-deep", "队列位置 #1001 之后,前面至少有 1000 个任务");
        told.forEach((id, message) -> {
            index.accept(new Decision(
                    Meta.of("scheduler", at),
                    id,
                    "v6e",
                    Decision.Kind.CLUSTER_CHOSEN,
                    "placed on cluster c1",
                    Optional.of("c1"),
                    Optional.of("4x4"),
                    Optional.empty(),
                    Optional.empty(),
                    List.of(new Decision.Candidate(
                            "c1",
                            "active",
                            7,
                            false,
                            Optional.of("res-a"),
                            Optional.empty(),
                            Decision.Outcome.CHOSEN,
                            "shortest queue")),
                    Optional.empty()));
            index.accept(taskStatus(id)
                    .version(2)
                    .status(Status.Pending, Reason.Waiting)
                    .clusterId("c1")
                    .message(message)
                    .at(at)
                    .build());
        });
        String html = authorized("/queues?cluster=c1&topology=4x4").body();
        String picked = html.substring(html.indexOf("id=\"pick-order-jobs\""), html.indexOf("id=\"submission-order\""));
        String submitted = html.substring(html.indexOf("id=\"submission-order-jobs\""), html.indexOf("<h3>Running"));
        assertThat(picked).contains("q-urgent", "q-early").doesNotContain("q-deep");
        assertThat(picked.indexOf("q-urgent")).isLessThan(picked.indexOf("q-early"));
        assertThat(picked).contains("#1").contains("#2");
        assertThat(submitted).contains("q-deep").doesNotContain("q-urgent").doesNotContain("q-early");
        // the queue's depth over time: its three placements, the deepest 7
        String chart = html.substring(html.indexOf("id=\"queue-chart\""), html.indexOf("</svg>"));
        assertThat(chart).contains("max 7, 3 samples").contains("<polyline");
    }

    @Test
    void hostileIdsActorsAndMessagesAreShownEscapedNeverRun() throws Exception {
        index.accept(taskStatus(HOSTILE_ID)
                .version(3)
                .status(Status.Pending, Reason.Waiting)
                .message(HOSTILE_MESSAGE)
                .clusterId("c1")
                .build());
        for (String path : List.of(
                "/queues?cluster=c1&topology=2x4",
                "/jobs",
                "/jobs?actor=" + Urls.encode(HOSTILE_ACTOR),
                Urls.job(HOSTILE_ID))) {
            HttpResponse<String> page = authorized(path);
            assertThat(page.statusCode()).as(path).isEqualTo(200);
            String html = page.body();
            assertThat(html)
                    .as(path)
                    .doesNotContain("<script>alert")
                    .doesNotContain("<img src=x")
                    .doesNotContain("\"><img")
                    .doesNotContain("\u001b")
                    .doesNotContain("\u202E")
                    .doesNotContain("\u0007")
                    .contains("&lt;script&gt;alert(1)&lt;/script&gt;");
            assertThat(page.headers().firstValue("Content-Security-Policy"))
                    .hasValueSatisfying(csp -> assertThat(csp).contains("script-src 'self'"));
        }
        String job = authorized(Urls.job(HOSTILE_ID)).body();
        assertThat(job).contains("\\u001b[2J").contains("\\u202e").contains("\"&lt;b&gt;");
    }

    @Test
    void theJobPageTellsThePositionEstimateStoryAdviceAndLogs() throws Exception {
        Instant at = Instant.parse("2026-12-02T10:00:00Z");
        index.accept(new Decision(
                Meta.of("scheduler", at),
                "waiter",
                "v6e",
                Decision.Kind.CLUSTER_CHOSEN,
                "placed on cluster c1: the shortest queue",
                Optional.of("c1"),
                Optional.of("2x4"),
                Optional.empty(),
                Optional.empty(),
                List.of(new Decision.Candidate(
                        "c1",
                        "active",
                        1,
                        false,
                        Optional.of("res-a"),
                        Optional.empty(),
                        Decision.Outcome.CHOSEN,
                        "shortest queue")),
                Optional.empty()));
        index.accept(taskStatus("waiter")
                .version(2)
                .status(Status.Pending, Reason.Waiting)
                .message("队列位置 #2,前面有 1 个任务")
                .clusterId("c1")
                .estimatedStart(Instant.parse("2026-12-02T10:20:00Z"), Instant.parse("2026-12-02T10:35:00Z"))
                .build());
        String html = authorized("/jobs/waiter").body();
        assertThat(html)
                .contains("id=\"position\">#2<")
                .contains("12-02 10:20 – 12-02 10:35 UTC")
                .contains("Placed on c1 (edge-a), queue 2x4")
                .contains("placed on cluster c1: the shortest queue")
                .contains("c1 (edge-a): chosen (shortest queue)")
                .contains("gs://bucket-a/logs/waiter/")
                .contains("it starts when the 1 job(s) ahead");
        assertThat(authorized("/jobs/waiter?fragment=live").body())
                .doesNotContain("<html")
                .contains("id=\"position\"");
        assertThat(authorized("/jobs/nobody").statusCode()).isEqualTo(404);
    }

    @Test
    void theFleetPageShowsTheClusterItsReservationAndIsolatedDevices() throws Exception {
        index.isolation(
                "c1/node-7",
                Optional.of(new NodeIsolation(
                        List.of("npu-3"),
                        Map.of(
                                "npu-3",
                                List.of(new NodeIsolation.DeviceIsolation("8C1F8609", "L3", 1_764_669_600_000L))))));
        String before = authorized("/fleet").body();
        assertThat(before).contains("<dd class=\"reservation-count\">unknown (");
        index.accept(io.falcon.testkit.builders.ExecutorEventBuilder.executorEvent("read")
                .at(Instant.parse("2026-12-02T10:01:00Z"))
                .reservationSeen("res-a", 16, 12));
        String read = authorized("/fleet").body();
        assertThat(read)
                .contains("<dd class=\"reservation-count\">16 TPU VM(s) at 12-02 10:01:00 UTC</dd>")
                .contains("<dd class=\"reservation-in-use\">12 TPU VM(s) (all tenants) at 12-02 10:01:00 UTC; ")
                .contains("<dd class=\"reservation-remaining\">4 TPU VM(s) at 12-02 10:01:00 UTC</dd>");
        index.accept(io.falcon.testkit.builders.ExecutorEventBuilder.executorEvent("short")
                .at(Instant.parse("2026-12-02T10:02:00Z"))
                .reservationShort("res-a", 2, 4));
        index.accept(io.falcon.testkit.builders.ExecutorEventBuilder.executorEvent("refused")
                .at(Instant.parse("2026-12-02T10:03:00Z"))
                .message("QUOTA_EXCEEDED <b>")
                .nodePoolCreateFailed());
        String html = authorized("/fleet").body();
        assertThat(html)
                .contains("2 TPU VM(s) at 12-02 10:02:00 UTC (a pool needed 4)")
                .contains("health-refusing")
                .contains("QUOTA_EXCEEDED &lt;b&gt;");
        assertThat(html)
                .contains("c1 (edge-a)")
                .contains("res-a")
                .contains("node-7")
                .contains("npu-3")
                .contains("8C1F8609");
        assertThat(authorized("/clusters/c1/timeline.svg").headers().firstValue("Content-Type"))
                .hasValueSatisfying(t -> assertThat(t).startsWith("image/svg+xml"));
    }

    @Test
    void aSubscribedPageIsToldWhenItsJobChanges() throws Exception {
        HttpRequest request = HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + server.port() + "/events?topic=job:sse-job"))
                .header("Authorization", "Bearer " + TOKEN)
                .header("Accept", "text/event-stream")
                .build();
        HttpResponse<InputStream> stream = HTTP.send(request, HttpResponse.BodyHandlers.ofInputStream());
        assertThat(stream.statusCode()).isEqualTo(200);
        List<String> lines = new CopyOnWriteArrayList<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(stream.body(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    lines.add(line);
                }
            } catch (java.io.IOException e) {
                // closed at the end of the test
            }
        });
        reader.setDaemon(true);
        reader.start();
        Await.until(
                "the subscription is registered",
                Duration.ofSeconds(10),
                () -> server.live().subscribers() > 0,
                lines::toString);
        index.accept(taskStatus("other-job")
                .version(1)
                .status(Status.Pending, Reason.Waiting)
                .build());
        index.accept(taskStatus("sse-job")
                .version(1)
                .status(Status.Pending, Reason.Waiting)
                .build());
        Await.until(
                "the page is told its job changed",
                Duration.ofSeconds(10),
                () -> lines.contains("data: job:sse-job"),
                // what the server holds too: a page it dropped (a send that failed) is no longer counted
                () -> lines + ", subscribers on the server: " + server.live().subscribers());
        assertThat(lines).contains("event: changed").doesNotContain("data: job:other-job");
        stream.body().close();
    }
}
