%% Erlang gen_tcp hello-world server for shootout, in the manner of the 2009 and 2017
%% shoot-outs: the VM's own HTTP packet parser ({packet, http_bin}), no framework.
%%
%% One acceptor process per scheduler; the process that accepts a connection becomes its
%% handler and first spawns a fresh acceptor, so that N accepts are always pending.
%% GET /hello -> "Hello World"; GET /app -> sleeps 95-105 ms (timer:sleep suspends only
%% this connection's process, never a scheduler) then 1024 bytes. Keep-alive by default on
%% HTTP/1.1, Connection: close honoured, HTTP/1.0 closes unless it asks for keep-alive.
%%
%% Start: erl -noshell +S N:N -pa BUILD -s hello_server start PORT
-module(hello_server).
-export([start/1, acceptor/1, clock/0]).

-define(IDLE_TIMEOUT, 60000).
-define(APP_BODY, binary:copy(<<"x">>, 1024)).

start([PortArg]) ->
    Port = list_to_integer(atom_to_list(PortArg)),
    spawn(fun() -> init(Port) end).

init(Port) ->
    ets:new(hello_date, [named_table, public, {read_concurrency, true}]),
    ets:insert(hello_date, {date, http_date()}),
    spawn_link(fun clock/0),
    {ok, Listen} = gen_tcp:listen(Port, [binary, {packet, http_bin}, {active, false},
                                         {reuseaddr, true}, {backlog, 4096}, {nodelay, true},
                                         {ip, {127, 0, 0, 1}}]),
    Acceptors = erlang:system_info(schedulers),
    [spawn(?MODULE, acceptor, [Listen]) || _ <- lists:seq(1, Acceptors)],
    io:format(standard_error, "erlang-gentcp listening on 127.0.0.1:~p with ~p scheduler(s) and acceptor(s)~n",
              [Port, Acceptors]),
    %% This process owns the listening socket: it must live on.
    receive stop -> ok end.

%% Refreshes the Date header once a second.
clock() ->
    timer:sleep(1000 - erlang:system_time(millisecond) rem 1000),
    ets:insert(hello_date, {date, http_date()}),
    clock().

acceptor(Listen) ->
    case gen_tcp:accept(Listen) of
        {ok, Socket} ->
            spawn(?MODULE, acceptor, [Listen]),
            request(Socket);
        {error, closed} ->
            ok;
        {error, _} ->
            acceptor(Listen)
    end.

%% Reads a request line, then its headers, then answers.
request(Socket) ->
    case gen_tcp:recv(Socket, 0, ?IDLE_TIMEOUT) of
        {ok, {http_request, Method, {abs_path, Path}, Version}} ->
            headers(Socket, Method, Path, Version, default);
        {ok, {http_request, Method, _Other, Version}} ->
            headers(Socket, Method, <<>>, Version, default);
        {ok, {http_error, _}} ->
            bad_request(Socket);
        {ok, _} ->
            bad_request(Socket);
        {error, _} ->
            gen_tcp:close(Socket)
    end.

headers(Socket, Method, Path, Version, Conn) ->
    case gen_tcp:recv(Socket, 0, ?IDLE_TIMEOUT) of
        {ok, {http_header, _, 'Connection', _, Value}} ->
            headers(Socket, Method, Path, Version, connection(Value));
        {ok, {http_header, _, _, _, _}} ->
            headers(Socket, Method, Path, Version, Conn);
        {ok, http_eoh} ->
            KeepAlive = keep_alive(Version, Conn),
            respond(Socket, Method, Path, Version, KeepAlive);
        {ok, _} ->
            bad_request(Socket);
        {error, _} ->
            gen_tcp:close(Socket)
    end.

connection(Value) ->
    case string:lowercase(Value) of
        <<"close">> -> close;
        <<"keep-alive">> -> keep_alive;
        _ -> default
    end.

keep_alive({1, 1}, close) -> false;
keep_alive({1, 1}, _) -> true;
keep_alive({1, 0}, keep_alive) -> true;
keep_alive(_, _) -> false.

respond(Socket, 'GET', <<"/hello">>, Version, KeepAlive) ->
    send(Socket, <<"200 OK">>, <<"Hello World">>, Version, KeepAlive);
respond(Socket, 'GET', <<"/app">>, Version, KeepAlive) ->
    timer:sleep(94 + rand:uniform(11)),
    send(Socket, <<"200 OK">>, ?APP_BODY, Version, KeepAlive);
respond(Socket, _, _, Version, KeepAlive) ->
    send(Socket, <<"404 Not Found">>, <<"Not Found">>, Version, KeepAlive).

send(Socket, Status, Body, Version, KeepAlive) ->
    [{date, Date}] = ets:lookup(hello_date, date),
    ConnHeader = case {KeepAlive, Version} of
                     {false, _} -> <<"Connection: close\r\n">>;
                     {true, {1, 0}} -> <<"Connection: keep-alive\r\n">>;
                     {true, _} -> <<>>
                 end,
    Response = [<<"HTTP/1.1 ">>, Status, <<"\r\nServer: gen_tcp\r\nDate: ">>, Date,
                <<"\r\nContent-Type: text/plain\r\nContent-Length: ">>,
                integer_to_binary(byte_size(Body)), <<"\r\n">>, ConnHeader, <<"\r\n">>, Body],
    case gen_tcp:send(Socket, Response) of
        ok when KeepAlive -> request(Socket);
        _ -> gen_tcp:close(Socket)
    end.

bad_request(Socket) ->
    gen_tcp:send(Socket, <<"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n">>),
    gen_tcp:close(Socket).

%% RFC 7231 IMF-fixdate, e.g. <<"Sun, 06 Nov 1994 08:49:37 GMT">>.
http_date() ->
    {{Y, Mo, D} = Date, {H, Mi, S}} = calendar:universal_time(),
    Day = element(calendar:day_of_the_week(Date),
                  {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}),
    Month = element(Mo, {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                         "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}),
    iolist_to_binary(io_lib:format("~s, ~2..0w ~s ~4..0w ~2..0w:~2..0w:~2..0w GMT",
                                   [Day, D, Month, Y, H, Mi, S])).
