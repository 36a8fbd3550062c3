%% Cowboy 2 hello-world server for shootout (the 2017 and 2019 shoot-outs' Cowboy contestant).
%%
%% BLOCKED here (see contestant.toml): Cowboy and Ranch cannot be installed from the
%% registries this project reaches, so this module has only been compiled, never run.
%% It is what the contestant will run once cowboy and ranch are available in
%% {build}/deps/*/ebin.
%%
%% Cowboy runs each request in its own process, so GET /app can timer:sleep 95-105 ms
%% without holding up anything else.
%%
%% Start: erl -noshell +S N:N -pa BUILD BUILD/deps/*/ebin -s hello_cowboy start PORT
-module(hello_cowboy).
-export([start/1, init/2]).

start([PortArg]) ->
    Port = list_to_integer(atom_to_list(PortArg)),
    {ok, _} = application:ensure_all_started(cowboy),
    Dispatch = cowboy_router:compile([{'_', [{"/hello", ?MODULE, hello},
                                             {"/app", ?MODULE, app}]}]),
    {ok, _} = cowboy:start_clear(hello_http,
                                 #{socket_opts => [{ip, {127, 0, 0, 1}}, {port, Port},
                                                   {backlog, 4096}, {nodelay, true}],
                                   max_connections => infinity},
                                 #{env => #{dispatch => Dispatch}}),
    io:format(standard_error, "erlang-cowboy listening on 127.0.0.1:~p with ~p scheduler(s)~n",
              [Port, erlang:system_info(schedulers)]).

init(Req, hello) ->
    {ok, reply(Req, <<"Hello World">>), hello};
init(Req, app) ->
    timer:sleep(94 + rand:uniform(11)),
    {ok, reply(Req, binary:copy(<<"x">>, 1024)), app}.

reply(Req, Body) ->
    case cowboy_req:method(Req) of
        <<"GET">> -> cowboy_req:reply(200, #{<<"content-type">> => <<"text/plain">>}, Body, Req);
        _ -> cowboy_req:reply(404, #{<<"content-type">> => <<"text/plain">>}, <<"Not Found">>, Req)
    end.
