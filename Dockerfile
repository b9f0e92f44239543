# One image for every Falcon component; the first argument picks the component (see deploy/entrypoint.sh):
#   docker run falcon cdc-ingest | scheduler | executor | status-sink | fault-streams | console | fleet-sim | cli ARGS...
# Built from the repository root: docker build -t falcon .

# ---- build: the whole reactor, then each component's runtime class path ----
# Every jar goes once into /falcon/lib; /falcon/classpath/COMPONENT lists the jars that component runs with and no
# others (the CLI gets no Streams runtime, no component gets the embedded broker, database or fleet-sim but fleet-sim).
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
COPY cli/pom.xml cli/
COPY console/pom.xml console/
COPY local/pom.xml local/
COPY simulation/pom.xml simulation/
COPY bench/pom.xml bench/
ARG COMPONENTS="cdc-ingest scheduler-streams executor status-sink fault-streams console fleet-sim cli"
RUN mvn -B -q -pl "$(echo $COMPONENTS | tr ' ' ',')" -am dependency:go-offline -DexcludeReactor=true || true
COPY . .
# The package phase writes each module's runtime class path to MODULE/target/runtime-classpath.txt (the parent pom's
# runtime-classpath execution, which ./falcon-local and bench/chaos start the processes from too): exactly those jars,
# and the module's own, go into /falcon/lib and /falcon/classpath/MODULE.
RUN mvn -B -q -DskipTests -pl "$(echo $COMPONENTS | tr ' ' ',')" -am install \
 && mkdir -p /falcon/lib /falcon/classpath \
 && for module in $COMPONENTS; do \
      jar="$module/target/$module-0.1.0-SNAPSHOT.jar" \
   && cp "$jar" /falcon/lib/ \
   && classpath="/falcon/lib/$(basename "$jar")" \
   && for dependency in $(tr ':' ' ' < "$module/target/runtime-classpath.txt"); do \
        cp "$dependency" /falcon/lib/ && classpath="$classpath:/falcon/lib/$(basename "$dependency")" || exit 1; \
      done \
   && echo "$classpath" > "/falcon/classpath/$module" || exit 1; \
    done

# ---- runtime: a JRE and the jars ----
FROM eclipse-temurin:17-jre
# curl serves the docker-compose healthchecks against the ops endpoint.
RUN apt-get update && apt-get install -y --no-install-recommends curl && rm -rf /var/lib/apt/lists/*
RUN groupadd --system --gid 10001 falcon && useradd --system --uid 10001 --gid falcon --home-dir /falcon falcon
WORKDIR /falcon
COPY --from=build /falcon/lib /falcon/lib
COPY --from=build /falcon/classpath /falcon/classpath
COPY deploy/entrypoint.sh /falcon/entrypoint.sh
RUN chmod 0755 /falcon/entrypoint.sh && mkdir -p /falcon/state && chown falcon:falcon /falcon/state
# Numeric, so that the kubelet can check runAsNonRoot against the image itself (k8s/ also sets runAsUser).
USER 10001:10001
# The ops endpoint (/healthz, /readyz, /metrics) of every component; the console's pages.
EXPOSE 8080 8090
ENV JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=75 -XX:+ExitOnOutOfMemoryError" \
    FALCON_LOG_FORMAT=json
ENTRYPOINT ["/falcon/entrypoint.sh"]
CMD ["--help"]
