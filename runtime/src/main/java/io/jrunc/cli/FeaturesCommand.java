package io.jrunc.cli;

import io.jrunc.runtime.RuntimeFeatures;
import io.jrunc.spec.Json;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

@Command(name = "features", description = "show the enabled features")
final class FeaturesCommand implements Callable<Integer> {
    @ParentCommand Main main;

    @Override
    public Integer call() {
        main.configure();
        System.out.println(Json.writeFeatures(RuntimeFeatures.of(Main.VERSION)));
        return 0;
    }
}
