# One image for every Falcon component; the first argument picks the component (see deploy/entrypoint.sh):
#   docker run falcon cdc-ingest | scheduler | executor | status-sink | fault-streams | fleet-sim | cli ARGS...
# Built from the repository root: docker build -t falcon .

# ---- build: the whole reactor, then every runtime jar into /falcon/lib ----
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
# Dependencies first, so that code changes reuse the cached layer.
COPY pom.xml ./
COPY events/pom.xml events/
COPY testkit/pom.xml testkit/
COPY ops/pom.xml ops/
COPY embedded/pom.xml embedded/
COPY fleet-sim/pom.xml fleet-sim/
COPY cdc-ingest/pom.xml cdc-ingest/
COPY scheduler-streams/pom.xml scheduler-streams/
COPY executor/pom.xml executor/
COPY status-sink/pom.xml status-sink/
COPY fault-streams/pom.xml fault-streams/
COPY local/pom.xml local/
COPY bench/pom.xml bench/
RUN mvn -B -q -pl local,ops,fault-streams -am dependency:go-offline -DexcludeReactor=true || true
COPY . .
RUN mvn -B -q -DskipTests -pl local,ops,fault-streams -am install \
 && mvn -B -q -pl local,ops,fault-streams dependency:copy-dependencies -DincludeScope=runtime \
      -DoutputDirectory=/falcon/lib -Dmdep.overWriteReleases=false -Dmdep.overWriteSnapshots=true \
 && cp local/target/local-*.jar ops/target/ops-*.jar fault-streams/target/fault-streams-*.jar /falcon/lib/ \
 && rm -f /falcon/lib/*-tests.jar

# ---- runtime: a JRE and the jars ----
FROM eclipse-temurin:17-jre
# curl serves the docker-compose healthchecks against the ops endpoint.
RUN apt-get update && apt-get install -y --no-install-recommends curl && rm -rf /var/lib/apt/lists/*
RUN groupadd --system --gid 10001 falcon && useradd --system --uid 10001 --gid falcon --home-dir /falcon falcon
WORKDIR /falcon
COPY --from=build /falcon/lib /falcon/lib
COPY deploy/entrypoint.sh /falcon/entrypoint.sh
RUN chmod 0755 /falcon/entrypoint.sh && mkdir -p /falcon/state && chown falcon:falcon /falcon/state
USER falcon
# The ops endpoint (/healthz, /readyz, /metrics) of every component.
EXPOSE 8080
ENV JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=75 -XX:+ExitOnOutOfMemoryError" \
    FALCON_LOG_FORMAT=json
ENTRYPOINT ["/falcon/entrypoint.sh"]
CMD ["--help"]
