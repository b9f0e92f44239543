package io.falcon.cli;

import io.falcon.events.TerminalText;
import io.falcon.events.Topics;
import io.falcon.events.fault.DeviceFault;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** Test and drill tooling: device faults as a fault collector would report them. */
@Command(
        name = "faults",
        mixinStandardHelpOptions = true,
        description = "Inject device faults (drills, demos).",
        subcommands = {FaultCommands.Inject.class})
final class FaultCommands implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "Missing required subcommand: inject");
    }

    @Command(
            name = "inject",
            mixinStandardHelpOptions = true,
            description = "Publish device faults to falcon.device-faults as a fault collector would.")
    static final class Inject implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        DeviceAddress address;

        @Option(names = "--code", required = true, paramLabel = "FAULT_CODE", description = "fault code, e.g. 8C1F8609")
        String code;

        @Option(names = "--level", paramLabel = "LEVEL", description = "fault level, e.g. SeparateNPU")
        String level;

        @Option(names = "--job", paramLabel = "JOB_ID", description = "the job running on the device, if any")
        String job;

        @Option(
                names = "--repeat",
                paramLabel = "N",
                defaultValue = "1",
                description = "send N faults, 1 ms apart (default 1)")
        int repeat;

        @Override
        public Integer call() {
            if (repeat < 1 || repeat > 1000) {
                throw new ParameterException(
                        spec.commandLine(),
                        "Invalid value for option '--repeat': must be between 1 and 1000, got " + repeat);
            }
            address.validate(spec);
            long now = System.currentTimeMillis();
            List<Map.Entry<String, DeviceFault>> faults = new ArrayList<>();
            for (int i = 0; i < repeat; i++) {
                DeviceFault fault = new DeviceFault(
                        null,
                        address.cluster,
                        address.node,
                        address.device,
                        code,
                        Optional.ofNullable(level),
                        Optional.ofNullable(job),
                        now + i);
                faults.add(Map.entry(fault.topicKey(), fault));
            }
            KafkaTopics.send(FalconCli.connections(spec), Topics.DEVICE_FAULTS, faults);
            PrintWriter out = spec.commandLine().getOut();
            out.println(TerminalText.visible(repeat + " fault" + (repeat == 1 ? "" : "s") + " " + code + " on "
                    + address + " sent to " + Topics.DEVICE_FAULTS.name()));
            out.flush();
            return FalconCli.EXIT_OK;
        }
    }
}
