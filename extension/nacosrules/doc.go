// Package nacosrules makes dubboroute read and follow rules in a Nacos
// config center with its own client (package directory/nacos) instead of
// dubbo-go's (nacos-sdk-go v2.2.5, which loses deletes, may reorder quick
// updates and never cancels a listener): it registers, for config-center
// protocol "nacos", the rule source of package extension/source. Its one
// registration point is Register, called by package extension's
// init.
//
// Rules are read where Java Dubbo 3.3's routers and configurators and Dubbo
// Admin keep them: dataId = the rule key (with Java's '$' and '/'
// rewrites), group "dubbo" (config-center parameter dubboroute.rule-group
// moves it; dubbo-go's own default would be DEFAULT_GROUP), the namespace of
// config-center.namespace ("dubbo", Dubbo's default, is Nacos's public
// namespace). The revision of a rule is its content MD5. See docs/nacos.md.
package nacosrules
