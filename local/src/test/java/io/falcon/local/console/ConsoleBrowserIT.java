package io.falcon.local.console;

import static io.falcon.testkit.builders.DeviceFaultBuilder.deviceFault;
import static org.assertj.core.api.Assertions.assertThat;

import io.falcon.cli.JobSubmission;
import io.falcon.console.ConsoleMain;
import io.falcon.embedded.SharedInfra;
import io.falcon.events.Topics;
import io.falcon.events.config.ExecutorKeys;
import io.falcon.events.config.SchedulerKeys;
import io.falcon.events.decision.Explanation;
import io.falcon.events.fault.DeviceFault;
import io.falcon.events.jobs.JobBoard;
import io.falcon.local.DemoFleet;
import io.falcon.local.LocalFalcon;
import io.falcon.testkit.Await;
import io.falcon.testkit.kafka.TopicProducer;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console in a real browser (Debian's headless Chromium through chromedriver) on the real pipeline of the
 * embedded default: jobs are submitted as upper components do, a waiting job's page changes its position without a
 * reload, its ledger story is read on its page, and an isolation appears on the fleet page as fault-streams decides
 * it. Each page is photographed into docs/images/ (README.md shows them). Without a browser it is skipped, saying so.
 */
class ConsoleBrowserIT {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Path IMAGES = Path.of("..", "docs", "images");
    private static final String SPEC =
            "{\"image\":\"train:1\",\"command\":[\"python\"],\"env\":{\"FALCON_SIM_DURATION_SECONDS\":\"%d\"}}";

    private static LocalFalcon falcon;
    private static ConsoleMain.Console console;
    private static WebDriver browser;

    @BeforeAll
    static void start() throws Exception {
        Assumptions.assumeTrue(
                Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "no browser: the console's browser test needs Debian's chromium and chromium-driver"
                        + " (/usr/bin/chromium, /usr/bin/chromedriver; apt-get install chromium chromium-driver;"
                        + " .ci/run installs them)");
        falcon = LocalFalcon.start(
                SharedInfra.broker(),
                SharedInfra.database(),
                SharedInfra.uniqueName("console"),
                Files.createTempDirectory("falcon-console"),
                LocalFalcon.demoFleetConfig(),
                DemoFleet.CLUSTERS,
                Map.of(
                        // one job acquires per queue (the seed's rule), so that jobs wait and move up one by one
                        SchedulerKeys.COMPONENT.name(),
                        Map.of(SchedulerKeys.ACQUIRERS_PER_QUEUE.key(), "1"),
                        ExecutorKeys.COMPONENT.name(),
                        Map.of(ExecutorKeys.HEARTBEAT_INTERVAL.key(), "1s")));
        console = falcon.startConsole(0);
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1100");
        browser = new ChromeDriver(
                new ChromeDriverService.Builder()
                        .usingDriverExecutable(CHROMEDRIVER.toFile())
                        .usingAnyFreePort()
                        .build(),
                options);
    }

    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (falcon != null) {
            falcon.close();
        }
    }

    private static String url(String path) {
        return "http://127.0.0.1:" + console.port() + path;
    }

    /** The element's text as the browser renders it, read in one step (a live update may replace it any time). */
    private static String text(String id) {
        Object text = ((JavascriptExecutor) browser)
                .executeScript("const e = document.getElementById(arguments[0]); return e ? e.innerText : '';", id);
        return text == null ? "" : text.toString();
    }

    /** Marks the loaded document: the mark survives live updates and is gone after a reload. */
    private static void mark() {
        ((JavascriptExecutor) browser).executeScript("window.falconMark = 'not reloaded';");
    }

    private static boolean marked() {
        return "not reloaded".equals(((JavascriptExecutor) browser).executeScript("return window.falconMark;"));
    }

    private static void screenshot(String name) throws Exception {
        File shot = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE);
        Files.createDirectories(IMAGES);
        Files.copy(shot.toPath(), IMAGES.resolve(name), StandardCopyOption.REPLACE_EXISTING);
    }

    private static WebDriverWait waiting(Duration timeout) {
        return new WebDriverWait(browser, timeout, Duration.ofMillis(200));
    }

    @Test
    void aWaitingJobMovesUpItsLedgerIsToldAndAnIsolationAppearsWithoutReload() throws Exception {
        List<String> ids = List.of("ui-1", "ui-2", "ui-3", "ui-4", "ui-5", "ui-6", "ui-7", "ui-8");
        try (Connection connection = falcon.connect()) {
            for (String id : ids) {
                JobSubmission.submit(
                        connection,
                        new JobSubmission.Request(
                                id,
                                id.endsWith("1") || id.endsWith("5") ? "alice" : "bob",
                                "train-" + id,
                                "v6e",
                                "2x4",
                                String.format(SPEC, 60),
                                Optional.empty(),
                                Optional.of(600L)));
            }
            // the job furthest back in its queue
            JobBoard.JobView queued = Await.present(
                    "a job waits at position #2 or later",
                    Duration.ofSeconds(60),
                    () -> furthestBack(connection, ids)
                            .filter(j -> Explanation.queuePosition(j.message()).orElse(0) >= 2),
                    () -> ids.stream()
                            .map(id -> find(connection, id)
                                    .map(JobBoard.JobView::headline)
                                    .orElse(id + ": -"))
                            .toList()
                            .toString());

            // the queues page while jobs wait
            browser.get(url("/queues?cluster=" + queued.clusterId().orElseThrow() + "&topology=2x4"));
            assertThat(browser.findElement(By.tagName("h1")).getText()).isEqualTo("Queues");
            assertThat(browser.getPageSource()).contains(queued.id());
            // the first waiting jobs in the scheduler's pick order, positions ascending; the queue's depth over time
            waiting(Duration.ofSeconds(90))
                    .withMessage("the queue page lists waiting jobs in pick order")
                    .until(b -> text("pick-order-jobs").contains("ui-"));
            @SuppressWarnings("unchecked")
            List<Object> positions = (List<Object>) ((JavascriptExecutor) browser)
                    .executeScript("return [...document.querySelectorAll('#pick-order-jobs td.position')]"
                            + ".map(td => td.innerText);");
            List<Integer> told = positions.stream()
                    .map(p -> Integer.parseInt(p.toString().substring(1)))
                    .toList();
            assertThat(told).isNotEmpty().isSorted();
            assertThat(text("queue-chart")).contains("queue depth at placement");
            screenshot("console-queues.png");

            // its page: the position changes as the jobs ahead start, without a reload. The queue page may have
            // taken a while (the console reads the topics from their beginning: on the build's shared broker, full
            // of the other tests' records, its index may still be catching up), so the job watched is the one
            // furthest back that still waits when its page opens; its position comes from its row
            JobBoard.JobView last = Await.present(
                    "the page of a job still waiting shows its position",
                    Duration.ofSeconds(90),
                    () -> furthestBack(connection, ids).filter(job -> {
                        browser.get(url("/jobs/" + job.id()));
                        return text("position").startsWith("#");
                    }),
                    () -> ids.stream()
                            .map(id -> find(connection, id)
                                    .map(JobBoard.JobView::headline)
                                    .orElse(id + ": -"))
                            .toList()
                            .toString());
            String first = text("position");
            mark();
            waiting(Duration.ofSeconds(60))
                    .withMessage("the position of " + last.id() + " changes on its page (was " + first + ")")
                    .until(b -> !text("position").equals(first));
            assertThat(marked())
                    .as("the page was updated in place, not reloaded")
                    .isTrue();
            String moved = text("position");
            assertThat(moved.isEmpty() || Integer.parseInt(moved.substring(1)) < Integer.parseInt(first.substring(1)))
                    .as("moved up from " + first + " to " + moved)
                    .isTrue();

            // once it has run, its page tells its decisions
            Await.until(
                    last.id() + " has its node pool",
                    Duration.ofSeconds(60),
                    () -> find(connection, last.id())
                            .filter(j -> !j.status().equals("Pending"))
                            .isPresent(),
                    () -> find(connection, last.id())
                            .map(JobBoard.JobView::headline)
                            .orElse(""));
            browser.get(url("/jobs/" + last.id()));
            waiting(Duration.ofSeconds(20))
                    .withMessage("the ledger story of " + last.id())
                    .until(b -> text("ledger").contains("Got its slot"));
            assertThat(text("ledger")).contains("Placed on " + last.clusterId().orElseThrow());
            assertThat(text("transitions")).contains("Pending/Waiting").contains("Running");
            assertThat(text("logs")).contains("/logs/" + last.id() + "/");
            screenshot("console-job.png");

            // the fleet page: a device isolated by fault-streams appears in place
            String running = Await.present(
                            "a job runs",
                            Duration.ofSeconds(60),
                            () -> ids.stream()
                                    .map(id -> find(connection, id))
                                    .flatMap(Optional::stream)
                                    .filter(j -> j.status().equals("Running"))
                                    .findFirst(),
                            () -> "")
                    .id();
            String cluster = find(connection, running)
                    .flatMap(JobBoard.JobView::clusterId)
                    .orElseThrow();
            // a node of its own: falcon.isolation is the broker's, and other tests on it isolate devices too
            String node = "node-ui-" + Long.toHexString(System.nanoTime());
            browser.get(url("/fleet"));
            mark();
            assertThat(browser.getPageSource()).doesNotContain(node);
            try (TopicProducer<String, DeviceFault> producer =
                    TopicProducer.to(falcon.kafka().bootstrapServers(), Topics.DEVICE_FAULTS)) {
                long now = System.currentTimeMillis();
                for (int i = 0; i < 3; i++) { // the RFC's default policy: 3 faults within 24 h isolate
                    DeviceFault fault = deviceFault(cluster, node, "npu-5")
                            .code("0x80E18403")
                            .level("L2")
                            .job(running)
                            .receivedAt(now + i * 1000L)
                            .build();
                    producer.send(fault.topicKey(), fault);
                }
            }
            waiting(Duration.ofSeconds(60))
                    .withMessage("the isolation of " + node + "/npu-5 appears on the fleet page")
                    .until(b -> Boolean.TRUE.equals(((JavascriptExecutor) b)
                            .executeScript(
                                    "return [...document.querySelectorAll('tr.isolated-device')].some(r =>"
                                            + " r.innerText.includes(arguments[0]) && r.innerText.includes('npu-5'));",
                                    node)));
            assertThat(marked())
                    .as("the fleet page was updated in place, not reloaded")
                    .isTrue();
            // the cluster's health from the executor's events: work went through there (or was refused)
            Object health = ((JavascriptExecutor) browser)
                    .executeScript(
                            "const e = document.querySelector('#cluster-' + CSS.escape(arguments[0]) + ' .health');"
                                    + " return e ? e.innerText : '';",
                            cluster);
            assertThat(String.valueOf(health)).containsAnyOf("work went through at", "refusal(s) since");
            Object remaining = ((JavascriptExecutor) browser)
                    .executeScript(
                            "const e = document.querySelector('#cluster-' + CSS.escape(arguments[0])"
                                    + " + ' .reservation-remaining'); return e ? e.innerText : 'no reservation';",
                            cluster);
            assertThat(String.valueOf(remaining)).matches("unknown \\(.*\\)|\\d+ TPU VM\\(s\\) at .*|no reservation");
            screenshot("console-fleet.png");
        }
    }

    /** The waiting job furthest back in its queue, as the rows tell now. */
    private static Optional<JobBoard.JobView> furthestBack(Connection connection, List<String> ids) {
        return ids.stream()
                .map(id -> find(connection, id))
                .flatMap(Optional::stream)
                .filter(j -> j.status().equals("Pending")
                        && j.reason().filter("Waiting"::equals).isPresent())
                .filter(j -> Explanation.queuePosition(j.message()).isPresent())
                .max(Comparator.comparing(
                        j -> Explanation.queuePosition(j.message()).orElse(0)));
    }

    private static Optional<JobBoard.JobView> find(Connection connection, String id) {
        try {
            return JobBoard.find(connection, id);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
