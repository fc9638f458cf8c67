package io.github.dubboroute.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.dubbo.config.ConfigCenterConfig;
import org.apache.dubbo.config.RegistryConfig;

/**
 * Settings for the programs' {@code --nacos} mode (nacos-client 2.x against a Nacos-compatible server on loopback).
 *
 * <p>The Nacos client keeps a local snapshot of services and configs (and its logs) under the user's home by default
 * and may serve a stale snapshot from an earlier run: {@link #isolate} points both at a fresh temporary directory of
 * this process, unless {@code JM.SNAPSHOT.PATH} / {@code JM.LOG.PATH} are set.
 */
final class Nacos {
    private Nacos() {}

    private static boolean isolated;

    static synchronized void isolate() {
        if (isolated) {
            return;
        }
        isolated = true;
        try {
            Path dir = Files.createTempDirectory("dubboroute-nacos-client-");
            dir.toFile().deleteOnExit();
            if (System.getProperty("JM.SNAPSHOT.PATH") == null) {
                System.setProperty("JM.SNAPSHOT.PATH", dir.toString());
            }
            if (System.getProperty("JM.LOG.PATH") == null) {
                System.setProperty("JM.LOG.PATH", dir.resolve("logs").toString());
            }
        } catch (IOException e) {
            throw new IllegalStateException("nacos: temporary client directory: " + e, e);
        }
        // The client's own logback/log4j2 configuration is not wanted (stdout stays for the programs' lines).
        System.setProperty("nacos.logging.default.config.enabled", "false");
    }

    /** {@code --namespace} and {@code --registry-group} on a Nacos registry (no-op for ZooKeeper). */
    static void registryParams(Args args, RegistryConfig registry) {
        if (!args.has("nacos")) {
            return;
        }
        if (args.has("namespace")) {
            registry.updateParameters(java.util.Map.of("namespace", args.require("namespace")));
        }
        if (args.has("registry-group")) {
            registry.setGroup(args.require("registry-group"));
        }
    }

    /** {@code --namespace} on a Nacos config center; the rules' group stays Java's {@code dubbo}. */
    static void configCenterParams(Args args, ConfigCenterConfig cc) {
        if (args.has("nacos") && args.has("namespace")) {
            cc.setNamespace(args.require("namespace"));
        }
    }
}
