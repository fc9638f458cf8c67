// Command consumer runs a BookFacade consumer (loadbalance: gray, dubboroute
// installed) behind the seeds' HTTP endpoints:
//
//	go run ./samples/bookfacade/cmd/consumer -app demo-consumer1 -registry zookeeper://127.0.0.1:2181 -http :8081
//	curl 'localhost:8081/books'                 # queryAll
//	curl 'localhost:8081/books?name=Go'         # queryByName
//	curl 'localhost:8081/testUser?userId=3'     # queryByName as user 3 (gray users go to status=gray providers)
//	curl 'localhost:8081/books?tag=gray'        # request tag dubbo.tag=gray (&force=true for dubbo.force.tag)
//
//	curl 'localhost:8081/explain?method=queryAll&tag=gray'   # how that call is routed now, without calling
//
// Rules are read from the config center (default: the registry's address),
// under /dubbo/config/dubbo/<key> on ZooKeeper, where Dubbo Admin writes them.
//
// Once the HTTP listener is bound it prints one line to stdout,
//
//	READY <app> http <host:port>
//
// with the bound address (so -http 127.0.0.1:0 picks a free port and says
// which); programs that start the consumer wait for that line.
package main
