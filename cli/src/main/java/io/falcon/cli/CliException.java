package io.falcon.cli;

/** A failure the CLI reports as one line on stderr, with its exit code. */
public class CliException extends RuntimeException {
    private final int exitCode;

    public CliException(int exitCode, String message) {
        super(message, null, false, false);
        this.exitCode = exitCode;
    }

    public int exitCode() {
        return exitCode;
    }

    /** The request was understood but cannot be done (no such job, job already final): exit 1. */
    public static CliException refused(String message) {
        return new CliException(FalconCli.EXIT_REFUSED, message);
    }

    /** The database or Kafka cannot be reached: exit 2. */
    public static CliException unreachable(String message) {
        return new CliException(FalconCli.EXIT_UNREACHABLE, message);
    }
}
