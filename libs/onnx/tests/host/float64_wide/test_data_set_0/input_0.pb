BaJP±4MSá<^é*ž¡„iâÆüòVéÝ<…<Çyi
L¥QEVéy›M¹ÑéP^©ÌE„éaôÞsìi¡xŸ}oGSéÛ(Höké