package io.falcon.console;

import gg.jte.ContentType;
import gg.jte.TemplateEngine;
import gg.jte.output.StringOutput;
import io.falcon.console.view.ClusterInfo;
import io.falcon.console.view.ConsoleIndex;
import io.falcon.console.view.Cursor;
import io.falcon.console.view.FleetPage;
import io.falcon.console.view.JobFilter;
import io.falcon.console.view.JobHistory;
import io.falcon.console.view.JobPage;
import io.falcon.console.view.JobsPage;
import io.falcon.console.view.ListedJob;
import io.falcon.console.view.Page;
import io.falcon.console.view.PoolSpan;
import io.falcon.console.view.QueuePage;
import io.falcon.console.view.Timeline;
import io.falcon.console.view.Views;
import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.Cookie;
import io.javalin.http.HttpStatus;
import io.javalin.http.SameSite;
import io.javalin.http.staticfiles.Location;
import java.sql.SQLException;
import java.time.Clock;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The console's HTTP side (Javalin on Jetty): authentication first, then the pages, each rendered by a precompiled
 * JTE template that HTML-escapes every value, and the server-sent events the pages subscribe to. Reads go to the
 * {@link ConsoleDatabase} (keyset pages) and the {@link ConsoleIndex} (the topics, in memory).
 */
public final class ConsoleServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ConsoleServer.class);
    /** Scripts and styles only from the console itself; no inline script can run, no page can frame it. */
    static final String CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self';"
            + " img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

    private final ConsoleDatabase database;
    private final ConsoleIndex index;
    private final Authenticator authenticator;
    private final LiveUpdates live = new LiveUpdates();
    private final TemplateEngine templates = TemplateEngine.createPrecompiled(ContentType.Html);
    private final Clock clock;
    private final int pageSize;
    private final int eventsPerJob;
    private final ZoneId zone = ZoneId.of("UTC");
    private final Javalin app;

    public ConsoleServer(
            ConsoleDatabase database,
            ConsoleIndex index,
            Authenticator authenticator,
            Clock clock,
            int pageSize,
            int eventsPerJob) {
        this.database = database;
        this.index = index;
        this.authenticator = authenticator;
        this.clock = clock;
        this.pageSize = pageSize;
        this.eventsPerJob = eventsPerJob;
        index.onChange(live::changed);
        this.app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.staticFiles.add(static_ -> {
                static_.hostedPath = "/static";
                static_.directory = "/io/falcon/console/static";
                static_.location = Location.CLASSPATH;
            });
            config.routes.before(this::authenticate);
            config.routes.before(ctx -> {
                ctx.header("Content-Security-Policy", CONTENT_SECURITY_POLICY);
                ctx.header("X-Content-Type-Options", "nosniff");
                ctx.header("Referrer-Policy", "no-referrer");
                ctx.header("Cache-Control", "no-store");
            });
            config.routes.get("/", ctx -> ctx.redirect("/fleet"));
            config.routes.get("/fleet", this::fleet);
            config.routes.get("/queues", this::queues);
            config.routes.get("/jobs", this::jobs);
            config.routes.get("/jobs/{id}", this::job);
            config.routes.get("/clusters/{id}/timeline.svg", this::timeline);
            config.routes.sse("/events", client -> {
                client.keepAlive();
                live.subscribe(client, client.ctx().queryParams("topic"));
            });
            config.routes.exception(SQLException.class, (e, ctx) -> {
                LOG.warn("the console cannot read the database: {}", e.toString());
                ctx.status(HttpStatus.SERVICE_UNAVAILABLE).result("the database cannot be read now; try again");
            });
        });
    }

    public ConsoleServer start(String host, int port) {
        app.start(host, port);
        LOG.info("the console serves http://{}:{}/ (auth={})", host, app.port(), authenticator.mode());
        return this;
    }

    public int port() {
        return app.port();
    }

    public LiveUpdates live() {
        return live;
    }

    private void authenticate(Context ctx) {
        if (ctx.path().startsWith("/static/")) {
            return;
        }
        Authenticator.Verdict verdict = authenticator.check(new Authenticator.Credentials(
                Optional.ofNullable(ctx.header("Authorization")),
                Optional.ofNullable(ctx.cookie(Authenticator.COOKIE)),
                Optional.ofNullable(ctx.queryParam("token")),
                Optional.ofNullable(ctx.header(Authenticator.IAP_HEADER))));
        if (verdict instanceof Authenticator.Verdict.Refused refused) {
            ctx.header("WWW-Authenticate", "Bearer realm=\"falcon-console\"");
            ctx.status(HttpStatus.UNAUTHORIZED).result(refused.why());
            ctx.skipRemainingHandlers();
            return;
        }
        if (verdict instanceof Authenticator.Verdict.Allowed allowed && allowed.fromQuery()) {
            // the token leaves the address bar (and the history) at once; the browser keeps it in a cookie
            Cookie cookie = new Cookie(Authenticator.COOKIE, ctx.queryParam("token"));
            cookie.setHttpOnly(true);
            cookie.setSameSite(SameSite.STRICT);
            cookie.setPath("/");
            cookie.setSecure("https".equals(ctx.scheme())
                    || "https"
                            .equalsIgnoreCase(Optional.ofNullable(ctx.header("X-Forwarded-Proto"))
                                    .orElse("")));
            ctx.cookie(cookie);
            ctx.redirect(withoutToken(ctx));
            ctx.skipRemainingHandlers();
        }
    }

    private static String withoutToken(Context ctx) {
        StringBuilder query = new StringBuilder();
        ctx.queryParamMap().forEach((name, values) -> {
            if (!name.equals("token")) {
                for (String v : values) {
                    query.append(query.isEmpty() ? "?" : "&")
                            .append(Urls.encode(name))
                            .append('=')
                            .append(Urls.encode(v));
                }
            }
        });
        return ctx.path() + query;
    }

    private void render(Context ctx, String template, Object page) {
        StringOutput out = new StringOutput();
        boolean fragment = "live".equals(ctx.queryParam("fragment"));
        templates.render(fragment ? template + "Live.jte" : template + ".jte", page, new VisibleHtmlOutput(out));
        ctx.html(out.toString());
    }

    private void fleet(Context ctx) throws SQLException {
        List<ClusterInfo> clusters = database.clusters();
        Map<String, List<PoolSpan>> pools = new LinkedHashMap<>();
        Map<String, Optional<String>> notes = new LinkedHashMap<>();
        Map<String, io.falcon.console.view.ClusterFacts> facts = new LinkedHashMap<>();
        for (ClusterInfo c : clusters) {
            pools.put(c.id(), index.pools(c.id()));
            notes.put(c.id(), index.capacityNote(c.id()));
            facts.put(c.id(), index.clusterFacts(c.id()));
        }
        FleetPage page =
                Views.fleet(clusters, pools, index.isolations(), notes, facts, index.jobsHeld(), clock.instant());
        render(ctx, "fleet", page);
    }

    private void queues(Context ctx) throws SQLException {
        List<ClusterInfo> clusters = database.clusters();
        Optional<ClusterInfo> cluster = Optional.ofNullable(ctx.queryParam("cluster"))
                .flatMap(id -> clusters.stream().filter(c -> c.id().equals(id)).findFirst())
                .or(() -> clusters.stream().findFirst());
        List<String> topologies =
                cluster.isPresent() ? database.topologies(cluster.get().id()) : List.of();
        Optional<String> topology = Optional.ofNullable(ctx.queryParam("topology"))
                .filter(topologies::contains)
                .or(() -> topologies.stream().findFirst());
        List<QueuePage.Entry> acquiring = List.of();
        List<QueuePage.Entry> pickOrder = List.of();
        List<QueuePage.Entry> waiting = List.of();
        List<QueuePage.Entry> running = List.of();
        Optional<Cursor> nextWaiting = Optional.empty();
        Optional<Cursor> nextRunning = Optional.empty();
        Optional<Timeline> timeline = Optional.empty();
        Optional<io.falcon.console.view.QueueChart> chart = Optional.empty();
        if (cluster.isPresent() && topology.isPresent()) {
            String c = cluster.get().id();
            String t = topology.get();
            List<ListedJob> acq = database.acquiring(c, t, pageSize);
            Optional<Cursor> waitingCursor = Cursor.parse(ctx.queryParam("waiting"));
            Page<ListedJob> w = database.waiting(c, t, waitingCursor, pageSize);
            Map<String, Integer> picks = index.pickOrder(c, t, pageSize);
            List<ListedJob> pickedRows = database.jobs(picks.keySet());
            Page<ListedJob> r = database.running(c, t, Cursor.parse(ctx.queryParam("running")), pageSize);
            List<String> ids = new ArrayList<>();
            acq.forEach(j -> ids.add(j.id()));
            w.items().forEach(j -> ids.add(j.id()));
            ids.addAll(picks.keySet());
            r.items().forEach(j -> ids.add(j.id()));
            Map<String, JobHistory> histories = index.histories(ids);
            acquiring = acq.stream()
                    .map(j -> Views.entry(j, Optional.ofNullable(histories.get(j.id())), zone))
                    .toList();
            Views.Waiting split =
                    Views.waiting(c, t, picks, pickedRows, w.items(), waitingCursor.isEmpty(), histories, zone);
            pickOrder = split.pickOrder();
            waiting = split.submissionOrder();
            running = r.items().stream()
                    .map(j -> Views.entry(j, Optional.ofNullable(histories.get(j.id())), zone))
                    .toList();
            nextWaiting = w.next();
            nextRunning = r.next();
            timeline = Optional.of(timelineOf(c));
            chart = Optional.of(io.falcon.console.view.QueueChart.of(index.samples(c), t, clock.instant()));
        }
        render(
                ctx,
                "queues",
                new QueuePage(
                        clusters,
                        cluster,
                        topologies,
                        topology,
                        acquiring,
                        pickOrder,
                        waiting,
                        nextWaiting,
                        running,
                        nextRunning,
                        chart,
                        timeline));
    }

    private Timeline timelineOf(String clusterId) {
        List<PoolSpan> pools = index.pools(clusterId);
        List<String> holders = pools.stream().flatMap(p -> p.holders().stream()).toList();
        return Timeline.of(pools, index.histories(holders), index.samples(clusterId), clock.instant());
    }

    private void timeline(Context ctx) {
        StringOutput out = new StringOutput();
        templates.render("timeline.jte", timelineOf(ctx.pathParam("id")), new VisibleHtmlOutput(out));
        ctx.contentType("image/svg+xml").result(out.toString());
    }

    private void jobs(Context ctx) throws SQLException {
        JobFilter filter = JobFilter.of(
                ctx.queryParam("id"), ctx.queryParam("actor"), ctx.queryParam("status"), ctx.queryParam("cluster"));
        Page<ListedJob> page = database.search(filter, Cursor.parse(ctx.queryParam("before")), pageSize);
        render(ctx, "jobs", new JobsPage(filter, page.items(), page.next()));
    }

    private void job(Context ctx) throws SQLException {
        String id = ctx.pathParam("id");
        Optional<Map<String, String>> row = database.row(id);
        if (row.isEmpty()) {
            ctx.status(HttpStatus.NOT_FOUND);
            render(ctx, "missing", id);
            return;
        }
        Map<String, ClusterInfo> clusters = new LinkedHashMap<>();
        database.clusters().forEach(c -> clusters.put(c.id(), c));
        JobPage page = Views.job(row.get(), index.history(id), clusters, eventsPerJob, zone);
        render(ctx, "job", page);
    }

    @Override
    public void close() {
        live.close();
        app.stop();
    }
}
