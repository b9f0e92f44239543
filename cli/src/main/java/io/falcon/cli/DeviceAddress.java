package io.falcon.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** The --cluster/--node/--device options of the commands about one device. */
final class DeviceAddress {
    @Option(names = "--cluster", required = true, paramLabel = "CLUSTER_ID", description = "the device's cluster")
    String cluster;

    @Option(names = "--node", required = true, paramLabel = "NODE", description = "the device's node")
    String node;

    @Option(names = "--device", required = true, paramLabel = "DEVICE", description = "the device, e.g. npu-3")
    String device;

    /** Node names never contain '/': it separates cluster and node in the isolation topic's keys. */
    void validate(CommandSpec spec) {
        if (node.contains("/")) {
            throw new ParameterException(
                    spec.commandLine(),
                    "Invalid value for option '--node': node names never contain '/', got '" + node + "'");
        }
    }

    @Override
    public String toString() {
        return cluster + "/" + node + "/" + device;
    }
}
