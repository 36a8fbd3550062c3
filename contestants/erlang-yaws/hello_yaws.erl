%% Yaws hello-world server for shootout: stands in for the 2017/2019 shoot-outs' Cowboy
%% contestant (Cowboy is on hex.pm, unreachable here; Yaws is Debian 12's erlang-yaws).
%%
%% Yaws runs embedded (yaws:start_embedded/4: no yaws.conf, no control socket) with one
%% appmod mounted on "/" that answers both paths. Yaws runs each connection in its own
%% process, so GET /app can timer:sleep 95-105 ms there (that suspends the process, never
%% a scheduler) before answering 1024 bytes. Keep-alive, Connection: close, HTTP/1.0, the
%% Date and Content-Length headers are Yaws's own handling.
%%
%% GET /ws asking for WebSocket (Upgrade: websocket) hands the connection to Yaws's
%% WebSocket process with echo_ws as its callback; without Upgrade it is a 400.
%%
%% Access and auth logs are off; Yaws's logdir (report.log) is BUILD/log, and YAWSHOME=BUILD
%% keeps its id dir (generated yaws_dynopts.erl) in BUILD/.yaws rather than $HOME/.yaws.
%%
%% Start: YAWSHOME=BUILD erl -noshell +S N:N -pa /usr/lib/yaws/ebin -pa BUILD \
%%            -s hello_yaws start PORT BUILD
-module(hello_yaws).
-export([start/1, out/1]).

-include("yaws_api.hrl").

start([PortArg, BuildArg]) ->
    Port = list_to_integer(atom_to_list(PortArg)),
    Build = atom_to_list(BuildArg),
    LogDir = filename:join(Build, "log"),
    DocRoot = filename:join(Build, "www"), % never served: the appmod takes every path
    ok = filelib:ensure_dir(filename:join(LogDir, "x")),
    ok = filelib:ensure_dir(filename:join(DocRoot, "x")),
    persistent_term:put(?MODULE, binary:copy(<<"x">>, 1024)), % the /app body, set once
    GL = [{logdir, LogDir},
          {ebin_dir, []},        % default: Yaws's examples/ebin, not needed
          {include_dir, []},
          {max_connections, nolimit},
          {keepalive_maxuses, nolimit}],
    SL = [{servername, "hello_yaws"},
          {listen, {127, 0, 0, 1}},
          {port, Port},
          {flags, [{access_log, false}, {auth_log, false}]},
          %% Yaws's default backlog is 1024; 4096 and nodelay as the other Erlang contestants
          {soptions, [{listen_opts, [{backlog, 4096}, {nodelay, true}]}]},
          {appmods, [{"/", ?MODULE}]}],
    ok = yaws:start_embedded(DocRoot, SL, GL, "hello_yaws"),
    io:format(standard_error, "erlang-yaws (Yaws ~s) listening on 127.0.0.1:~p with ~p scheduler(s)~n",
              [yaws_generated:version(), Port, erlang:system_info(schedulers)]).

out(Arg) ->
    Method = yaws_api:http_request_method(Arg#arg.req),
    case {Method, Arg#arg.server_path} of
        {'GET', "/hello"} ->
            [{status, 200}, {content, "text/plain", <<"Hello World">>}];
        {'GET', "/ws"} ->
            websocket(Arg);
        {'GET', "/app"} ->
            timer:sleep(94 + rand:uniform(11)),
            [{status, 200}, {content, "text/plain", persistent_term:get(?MODULE)}];
        _ ->
            [{status, 404}, {content, "text/plain", <<"Not Found">>}]
    end.

%% A request for WebSocket goes to Yaws's WebSocket process (which checks the rest of the
%% handshake); any other GET of /ws is refused.
websocket(Arg) ->
    Upgrade = yaws_api:get_header(Arg#arg.headers, upgrade, ""),
    case string:lowercase(Upgrade) of
        "websocket" ->
            {websocket, echo_ws, []};
        _ ->
            [{status, 400}, {content, "text/plain", <<"Bad Request: not a WebSocket upgrade">>}]
    end.
