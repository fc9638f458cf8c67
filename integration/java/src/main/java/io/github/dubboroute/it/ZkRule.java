package io.github.dubboroute.it;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;

/**
 * Writes, reads or deletes one routing rule at Dubbo's config-center path /dubbo/config/dubbo/&lt;key&gt;
 * (what Dubbo Admin does), for the manual and scripted interop checks.
 *
 * <pre>
 * java -cp target/dubboroute-java-it.jar io.github.dubboroute.it.ZkRule --zk 127.0.0.1:2191 --key K --file rule.yaml
 * java -cp target/dubboroute-java-it.jar io.github.dubboroute.it.ZkRule --zk 127.0.0.1:2191 --key K --content "..."
 * java -cp target/dubboroute-java-it.jar io.github.dubboroute.it.ZkRule --zk 127.0.0.1:2191 --key K --get
 * java -cp target/dubboroute-java-it.jar io.github.dubboroute.it.ZkRule --zk 127.0.0.1:2191 --key K --delete
 * java -cp target/dubboroute-java-it.jar io.github.dubboroute.it.ZkRule --zk 127.0.0.1:2191 --ls /dubbo/IFACE/providers
 * </pre>
 * {@code --ls PATH} prints the children of any node, URL-decoded, one per line (a raw registry read: what
 * providers really registered).
 */
public final class ZkRule {
    private ZkRule() {}

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv, "get", "delete");
        String zkAddr = args.require("zk").replace("zookeeper://", "");
        String path = args.has("ls")
                ? args.require("ls")
                : args.get("root", "/dubbo/config") + "/" + args.get("group", "dubbo") + "/" + args.require("key");
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper zk = new ZooKeeper(zkAddr, 10000, e -> {
            if (e.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        try {
            if (!connected.await(10, TimeUnit.SECONDS)) {
                System.err.println("ZkRule: cannot connect to ZooKeeper at " + zkAddr);
                System.exit(1);
            }
            if (args.has("ls")) {
                for (String child : zk.getChildren(path, false)) {
                    System.out.println(java.net.URLDecoder.decode(child, StandardCharsets.UTF_8));
                }
            } else if (args.has("get")) {
                System.out.print(new String(zk.getData(path, false, null), StandardCharsets.UTF_8));
            } else if (args.has("delete")) {
                try {
                    zk.delete(path, -1);
                } catch (KeeperException.NoNodeException ignored) {
                    // already absent
                }
            } else {
                byte[] data = args.has("file")
                        ? Files.readAllBytes(Path.of(args.get("file", null)))
                        : args.require("content").getBytes(StandardCharsets.UTF_8);
                StringBuilder p = new StringBuilder();
                String[] parts = path.substring(1).split("/");
                for (int i = 0; i < parts.length - 1; i++) {
                    p.append('/').append(parts[i]);
                    try {
                        zk.create(p.toString(), new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                    } catch (KeeperException.NodeExistsException ignored) {
                        // parent exists
                    }
                }
                try {
                    zk.create(path, data, ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
                } catch (KeeperException.NodeExistsException e) {
                    zk.setData(path, data, -1);
                }
            }
        } finally {
            zk.close();
        }
    }
}
