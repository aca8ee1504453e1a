package io.jrunc.cli;

import io.jrunc.runtime.RuntimeFeatures;
import io.jrunc.spec.Json;

final class FeaturesCommand extends Subcommand {
    @Override
    int maxArguments() {
        return 0;
    }

    @Override
    String name() {
        return "features";
    }

    @Override
    String description() {
        return "show the enabled features";
    }

    @Override
    String argsUsage() {
        return "";
    }

    @Override
    void read(Arguments args) {
    }

    @Override
    public Integer call() {
        System.out.println(Json.writeFeatures(RuntimeFeatures.of(Main.VERSION)));
        return 0;
    }
}
