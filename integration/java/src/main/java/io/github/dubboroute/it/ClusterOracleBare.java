package io.github.dubboroute.it;

import java.util.List;
import java.util.Map;

/** Like ClusterOracleService but without a mock class: mock=true fails with "Failed to create mock implementation". */
public interface ClusterOracleBare {
    String str();

    int i32();

    long i64();

    boolean bool();

    Integer boxed();

    List<String> list();

    Map<String, Object> map();

    ClusterOracleService.Item pojo();
}
