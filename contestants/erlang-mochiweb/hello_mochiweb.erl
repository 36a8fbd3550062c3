%% MochiWeb hello-world server for shootout (the 2019 shoot-out's Mochiweb contestant).
%%
%% MochiWeb runs one process per connection; GET /app sleeps 95-105 ms in that process
%% (timer:sleep suspends the process, never a scheduler), then answers 1024 bytes.
%% Keep-alive, Connection: close and HTTP/1.0 are MochiWeb's own handling.
%%
%% Start: erl -noshell +S N:N -pa BUILD -s hello_mochiweb start PORT
-module(hello_mochiweb).
-export([start/1, loop/1]).

start([PortArg]) ->
    Port = list_to_integer(atom_to_list(PortArg)),
    %% The Date header comes from mochiweb_clock, which the mochiweb application would
    %% start; the application itself is not started (it lists ssl, not installed here).
    persistent_term:put(?MODULE, binary:copy(<<"x">>, 1024)), % the /app body, set once
    {ok, _} = mochiweb_clock:start(),
    {ok, _} = mochiweb_http:start([{name, ?MODULE},
                                   {link, false}, % -s runs this in a short-lived process
                                   {ip, {127, 0, 0, 1}},
                                   {port, Port},
                                   {backlog, 4096},
                                   {nodelay, true},
                                   %% default 2048 concurrent connections: far too few for
                                   %% the 2019 device ramp
                                   {max, 1000000},
                                   {loop, fun ?MODULE:loop/1}]),
    io:format(standard_error, "erlang-mochiweb listening on 127.0.0.1:~p with ~p scheduler(s)~n",
              [Port, erlang:system_info(schedulers)]).

loop(Req) ->
    case {mochiweb_request:get(method, Req), mochiweb_request:get(path, Req)} of
        {'GET', "/hello"} ->
            mochiweb_request:respond({200, [{"Content-Type", "text/plain"}], <<"Hello World">>}, Req);
        {'GET', "/app"} ->
            timer:sleep(94 + rand:uniform(11)),
            mochiweb_request:respond({200, [{"Content-Type", "text/plain"}], app_body()}, Req);
        _ ->
            mochiweb_request:respond({404, [{"Content-Type", "text/plain"}], <<"Not Found">>}, Req)
    end.

app_body() ->
    persistent_term:get(?MODULE).
