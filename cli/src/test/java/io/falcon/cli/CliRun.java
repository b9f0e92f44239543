package io.falcon.cli;

import io.falcon.events.Settings;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.Map;

/** One CLI invocation with captured output. */
record CliRun(int exitCode, String out, String err) {
    static CliRun of(Map<String, String> settings, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = FalconCli.run(new Settings(settings), new PrintWriter(out), new PrintWriter(err), args);
        return new CliRun(code, out.toString(), err.toString());
    }

    static CliRun of(String... args) {
        return of(Map.of(), args);
    }
}
