#!/bin/sh
# Runs one Falcon component from the image's class path: entrypoint.sh COMPONENT [ARGS...]
# Logs are JSON lines (ops' falcon-logback-json.xml) unless FALCON_LOG_FORMAT=text.
set -eu

usage() {
  echo "usage: entrypoint.sh cdc-ingest|scheduler|executor|status-sink|fault-streams|console|fleet-sim|cli [ARGS...]" >&2
}

component="${1:-}"
if [ -z "$component" ] || [ "$component" = "--help" ] || [ "$component" = "-h" ]; then
  usage
  exit 0
fi
shift

case "$component" in
  cdc-ingest)    module=cdc-ingest;        main=io.falcon.cdc.CdcIngestMain ;;
  scheduler)     module=scheduler-streams; main=io.falcon.scheduler.SchedulerMain ;;
  executor)      module=executor;          main=io.falcon.executor.Main ;;
  status-sink)   module=status-sink;       main=io.falcon.statussink.StatusSinkMain ;;
  fault-streams) module=fault-streams;     main=io.falcon.faults.FaultStreamsMain ;;
  console)       module=console;           main=io.falcon.console.ConsoleMain ;;
  fleet-sim)     module=fleet-sim;         main=io.falcon.fleetsim.FleetSim ;;
  cli)           module=cli;               main=io.falcon.cli.FalconCli ;;
  *)
    echo "unknown component '$component'" >&2
    usage
    exit 2
    ;;
esac

logging=""
if [ "${FALCON_LOG_FORMAT:-json}" = "json" ] && [ "$component" != "cli" ]; then
  logging="-Dlogback.configurationFile=falcon-logback-json.xml"
fi

# The JDK http client (the executor's Kubernetes clients) completes every response on the JVM's common pool; with
# fewer than two threads there (a container limited to one or two CPUs) it starts a new thread for each response
# instead. Two threads keep those completions on long-lived threads; FALCON_COMMON_POOL_THREADS overrides.
common_pool="-Djava.util.concurrent.ForkJoinPool.common.parallelism=${FALCON_COMMON_POOL_THREADS:-2}"

# Each component runs with its own class path (the Dockerfile wrote one per module); FALCON_CLASSPATH overrides it.
classpath="${FALCON_CLASSPATH:-$(cat "/falcon/classpath/$module")}"
# shellcheck disable=SC2086
exec java $logging "$common_pool" ${FALCON_JAVA_OPTS:-} -cp "$classpath" "$main" "$@"
